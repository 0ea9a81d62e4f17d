package probes

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// clCNI is an SDN-style l2bridge CNI config with the given DNS server and ExceptionList.
func clCNI(dns, exceptions string) string {
	return `{"cniVersion":"0.2.0","name":"l2bridge","type":"win-bridge","master":"Ethernet",
  "dns":{"Nameservers":["` + dns + `"],"Search":["svc.cluster.local"]},
  "policies":[{"Name":"EndpointPolicy","Value":{"Type":"OutBoundNAT","ExceptionList":[` + exceptions + `]}},
    {"Name":"EndpointPolicy","Value":{"Type":"ROUTE","DestinationPrefix":"10.32.0.0/24","NeedEncap":true}}]}`
}

func clKubeletProc(dns string) string {
	return `[{"Name":"kubelet.exe","ProcessId":4242,"CommandLine":"C:\\k\\kubelet.exe --hostname-override=win-1 --cluster-dns=` + dns + ` --cluster-domain=cluster.local --resolv-conf=\"\""}]`
}

func TestDNSConfig(t *testing.T) {
	winIP := `[{"IPAddress":"10.240.0.22","PrefixLength":24,"InterfaceAlias":"vEthernet (Ethernet)"}]`
	good := `"10.200.0.0/16","10.32.0.0/24","10.240.0.0/24"`
	cfg := `{"serviceCIDR":"10.32.0.0/24","clusterCIDR":"10.200.0.0/16","sources":{"serviceCIDR":"by hand","clusterCIDR":"by hand"}}`
	base := func(t *testing.T) map[string]string {
		return map[string]string{
			evidence.PathNodes:                                   string(clList(t, clWinNode("win-1"), clLinuxNode("node-0", "10.240.0.20", "10.200.0.0/24"))),
			evidence.PathServices:                                string(clList(t, clService("kube-system", "kube-dns", "10.32.0.10"), clService("default", "kubernetes", "10.32.0.1"))),
			evidence.PathClusterConfig:                           cfg,
			evidence.NodeFile("win-1", evidence.FileIPAddresses): winIP,
			evidence.NodeFile("win-1", evidence.FileProcesses):   clKubeletProc("10.32.0.10"),
			evidence.NodeFile("win-1", evidence.FileCNIConfig):   clCNI("10.32.0.10", good),
		}
	}
	for _, tc := range []struct {
		name    string
		mod     func(map[string]string)
		status  Status
		want    []string
		fixCIDR string
	}{
		{"healthy", func(map[string]string) {}, Pass, []string{"kubelet cluster DNS 10.32.0.10 = kube-dns"}, ""},
		{"SDN start-kubelet.ps1 defaults", func(m map[string]string) {
			m[evidence.NodeFile("win-1", evidence.FileProcesses)] = clKubeletProc("11.0.0.10")
			m[evidence.NodeFile("win-1", evidence.FileCNIConfig)] = clCNI("11.0.0.10", `"10.200.0.0/16","11.0.0.0/8","10.240.0.0/24"`)
		}, Fail, []string{"kubelet cluster DNS 11.0.0.10 is not kube-dns 10.32.0.10", `$KubeDnsServiceIp = "11.0.0.10"`,
			"CNI DNS nameservers 11.0.0.10", "ExceptionList lacks the service CIDR 10.32.0.0/24", "ExceptionList holds 11.0.0.0/8, the SDN default",
			`$serviceCIDR = "11.0.0.0/8"`, "(and 3 more)"}, "10.32.0.0/24"},
		{"10.0.0.0/8 instead of the ranges", func(m map[string]string) {
			m[evidence.NodeFile("win-1", evidence.FileCNIConfig)] = clCNI("10.32.0.10", `"10.0.0.0/8"`)
		}, Warn, []string{"ExceptionList entry 10.0.0.0/8 is broader than needed", "the cluster CIDR 10.200.0.0/16 and the service CIDR 10.32.0.0/24 and the node subnet 10.240.0.0/24"}, "10.32.0.0/24"},
		{"cluster CIDR missing, stray range", func(m map[string]string) {
			m[evidence.NodeFile("win-1", evidence.FileCNIConfig)] = clCNI("10.32.0.10", `"10.32.0.0/24","10.240.0.0/24","172.16.0.0/12"`)
		}, Fail, []string{"ExceptionList lacks the cluster CIDR 10.200.0.0/16", "entry 172.16.0.0/12 matches no cluster range"}, "10.32.0.0/24"},
		{"kubelet DNS from the config file, cluster ranges inferred", func(m map[string]string) {
			delete(m, evidence.PathClusterConfig)
			delete(m, evidence.NodeFile("win-1", evidence.FileProcesses))
			m[evidence.NodeFile("win-1", evidence.FileKubeletConfig)] = "kind: KubeletConfiguration\nclusterDNS:\n- 10.96.0.10\n"
		}, Fail, []string{"kubelet cluster DNS 10.96.0.10 is not kube-dns 10.32.0.10", "kubelet-config.json"}, "<service CIDR: kube-apiserver --service-cluster-ip-range>"},
		{"no kube-dns Service", func(m map[string]string) {
			m[evidence.PathServices] = string(clList(t, clService("default", "kubernetes", "10.32.0.1")))
		}, Pass, []string{"no kube-dns Service"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := base(t)
			tc.mod(files)
			f := clOne(t, dnsConfig{}, "win-1", clEv(files), tc.status, tc.want...)
			if tc.status >= Warn && (f.Fix == nil || f.Fix.Kind != Manual || !strings.HasPrefix(f.Fix.Commands[0], `(edit) C:\k\start-kubelet.ps1: $KubeDnsServiceIp = "10.32.0.10"; $serviceCIDR = "`+tc.fixCIDR+`"`)) {
				t.Errorf("fix = %+v", f.Fix)
			}
		})
	}
	t.Run("inferred service range accepts the real one", func(t *testing.T) {
		files := base(t)
		delete(files, evidence.PathClusterConfig) // 10.32.0.0/28 inferred from 10.32.0.1 and .10
		clOne(t, dnsConfig{}, "win-1", clEv(files), Pass)
	})
	t.Run("no CNI config, no kubelet", func(t *testing.T) {
		files := base(t)
		delete(files, evidence.NodeFile("win-1", evidence.FileCNIConfig))
		delete(files, evidence.NodeFile("win-1", evidence.FileProcesses))
		clOne(t, dnsConfig{}, "win-1", clEv(files), Skip, "no evidence at nodes/win-1/cni-config.json")
	})
}

// TestPodCIDRInCluster: a podCIDR outside the cluster CIDR fails, citing both files it
// compares (the finding once lost cluster-config.json); an inferred cluster CIDR proves
// nothing, since it is built from the podCIDRs.
func TestPodCIDRInCluster(t *testing.T) {
	nodes := func(t *testing.T, cidr string) string {
		return string(clList(t, clWinNode("win-1", func(n *corev1.Node) { n.Spec.PodCIDR = cidr })))
	}
	cfg := `{"clusterCIDR":"10.200.0.0/16"}`
	clOne(t, podCIDR{}, "win-1", clEv(map[string]string{evidence.PathNodes: nodes(t, "10.200.3.0/24"), evidence.PathClusterConfig: cfg}), Pass)
	f := clOne(t, podCIDR{}, "win-1", clEv(map[string]string{evidence.PathNodes: nodes(t, "10.244.3.0/24"), evidence.PathClusterConfig: cfg}),
		Fail, "podCIDR 10.244.3.0/24 is outside the cluster CIDR 10.200.0.0/16")
	if !slices.Equal(f.Evidence, []string{evidence.PathNodes, evidence.PathClusterConfig}) {
		t.Errorf("outside: evidence %v, want nodes.json and cluster-config.json", f.Evidence)
	}
	clOne(t, podCIDR{}, "win-1", clEv(map[string]string{evidence.PathNodes: nodes(t, "10.244.3.0/24")}), Pass)
}
