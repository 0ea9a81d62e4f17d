package probes

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

func TestNodeReady(t *testing.T) {
	since := metav1.NewTime(time.Date(2024, 5, 2, 7, 30, 0, 0, time.UTC))
	setCond := func(c corev1.NodeCondition) func(*corev1.Node) {
		return func(n *corev1.Node) {
			for i := range n.Status.Conditions {
				if n.Status.Conditions[i].Type == c.Type {
					n.Status.Conditions[i] = c
					return
				}
			}
			n.Status.Conditions = append(n.Status.Conditions, c)
		}
	}
	for _, tc := range []struct {
		name   string
		node   corev1.Node
		status Status
		want   []string
		choice bool // the fix offers delete-node
	}{
		{"ready", clWinNode("win-1", setCond(corev1.NodeCondition{Type: "KubeletUnhealthy", Status: corev1.ConditionFalse})),
			Pass, []string{"Ready since 2024-05-01 08:00:00Z"}, false},
		{"kubelet stopped posting", clWinNode("win-1", setCond(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastTransitionTime: since})),
			Fail, []string{"Ready=Unknown (NodeStatusUnknown)", `message "Kubelet stopped posting node status."`, "since 2024-05-02 07:30:00Z", "SVC-REBOOT"}, true},
		{"network not ready", clWinNode("win-1", setCond(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
			Reason: "KubeletNotReady", Message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni config uninitialized"})),
			Fail, []string{"Ready=False (KubeletNotReady)", "HNS-NETWORK"}, false},
		{"NPD says kube-proxy unhealthy", clWinNode("win-1", setCond(corev1.NodeCondition{Type: "KubeProxyUnhealthy", Status: corev1.ConditionTrue,
			Reason: "KubeProxyUnhealthy", Message: "kube-proxy service is not running", LastTransitionTime: since})),
			Fail, []string{"KubeProxyUnhealthy=True", "kube-proxy service is not running", "node-problem-detector"}, false},
		{"no Ready condition", clWinNode("win-1", func(n *corev1.Node) { n.Status.Conditions = nil }),
			Fail, []string{"no Ready condition"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := clEv(map[string]string{evidence.PathNodes: string(clList(t, tc.node))})
			f := clOne(t, nodeReady{}, "win-1", ev, tc.status, tc.want...)
			if tc.status == Fail && f.Fix == nil {
				t.Fatal("no fix")
			}
			if got := f.Fix != nil && len(f.Fix.Choices) == 2 && f.Fix.Choices[1].Action == "delete-node"; got != tc.choice {
				t.Errorf("delete-node offered: %v, want %v", got, tc.choice)
			}
		})
	}
	// The API server's node list names every registered node: a node not in it is not
	// registered (fail), unless it is there under another spelling (the folder named after
	// the host), which stays an error asking about the folder's name.
	t.Run("node missing from nodes.json", func(t *testing.T) {
		ev := clEv(map[string]string{evidence.PathNodes: string(clList(t, clWinNode("other")))})
		clOne(t, nodeReady{}, "win-1", ev, Fail, "node win-1 is not registered in the cluster: cluster/nodes.json lists 1 node(s)")
		clOne(t, nodeTaint{}, "win-1", ev, Skip, "not registered", "NODE-READY judges it")
	})
	t.Run("node under another spelling", func(t *testing.T) {
		ev := clEv(map[string]string{evidence.PathNodes: string(clList(t, clWinNode("WIN-1")))})
		clOne(t, nodeReady{}, "win-1", ev, Error, `"win-1" is not in the cluster's node list`, "named after the Kubernetes node")
	})
}

func clHost(computerName string, joined bool) string {
	domain := "WORKGROUP"
	if joined {
		domain = "corp.example.com"
	}
	return fmt.Sprintf(`{"ComputerName":%q,"DnsHostName":%q,"Domain":%q,"PartOfDomain":%v,"ProductName":"Windows Server 2019 Datacenter","CurrentBuild":"17763","UBR":1879}`,
		computerName, computerName, domain, joined)
}

func TestHostName(t *testing.T) {
	for _, tc := range []struct {
		node, computer string
		joined         bool
		status         Status
		want           []string
	}{
		{"win-1", "WIN-1", true, Pass, []string{"node name win-1 matches ComputerName WIN-1"}},
		{"win-worker-node-01", "WIN-WORKER-NODE", true, Fail, []string{"18 characters on a domain-joined host: AD knows it as WIN-WORKER-NODE"}},
		{"win-worker-node-01", "WIN-WORKER-NODE", false, Warn, []string{"the computer name is cut to WIN-WORKER-NODE", "domain-joined false (WORKGROUP)"}},
		{"win-worker-node-01", "EC2AMAZ-4S2K1", false, Fail, []string{"neither ComputerName EC2AMAZ-4S2K1 nor its 15-character truncation", "--hostname-override"}},
		{"win-1", "EC2AMAZ-4S2K1", false, Warn, []string{"ComputerName EC2AMAZ-4S2K1 is not the node name win-1", "kube-proxy must use exactly the same override"}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%v", tc.node, tc.computer, tc.joined), func(t *testing.T) {
			ev := clEv(map[string]string{evidence.NodeFile(tc.node, evidence.FileHost): clHost(tc.computer, tc.joined)})
			f := clOne(t, hostName{}, tc.node, ev, tc.status, tc.want...)
			if (tc.status >= Warn) != (f.Fix != nil) {
				t.Errorf("fix = %+v", f.Fix)
			}
		})
	}
	t.Run("host.json missing", func(t *testing.T) {
		clOne(t, hostName{}, "win-1", clEv(nil), Skip, "no evidence at nodes/win-1/host.json")
	})
}

func TestNodeIP(t *testing.T) {
	peer := clLinuxNode("node-0", "10.240.0.20", "10.200.0.0/24")
	ips := func(rows ...string) string {
		s := "["
		for i, r := range rows {
			if i > 0 {
				s += ","
			}
			s += r
		}
		return s + "]"
	}
	row := func(ip string, bits int, alias string) string {
		return fmt.Sprintf(`{"IPAddress":%q,"PrefixLength":%d,"InterfaceAlias":%q}`, ip, bits, alias)
	}
	withIP := func(ip string) func(*corev1.Node) {
		return func(n *corev1.Node) {
			n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}
		}
	}
	for _, tc := range []struct {
		name   string
		node   corev1.Node
		ips    string
		status Status
		want   []string
	}{
		{"management vNIC", clWinNode("win-1"), ips(row("10.240.0.22", 24, "vEthernet (Ethernet)"), row("172.20.16.1", 20, "vEthernet (nat)"), row("127.0.0.1", 8, "Loopback Pseudo-Interface 1")),
			Pass, []string{`InternalIP 10.240.0.22 is on "vEthernet (Ethernet)"`}},
		{"registered the NAT switch", clWinNode("win-1", withIP("172.20.16.1")), ips(row("10.240.0.22", 24, "vEthernet (Ethernet)"), row("172.20.16.1", 20, "vEthernet (nat)")),
			Fail, []string{`InternalIP 172.20.16.1 is on "vEthernet (nat)": the Docker/WinNAT internal switch`,
				`the right-looking address is 10.240.0.22 on "vEthernet (Ethernet)" (same subnet 10.240.0.0/24 as node node-0's InternalIP 10.240.0.20)`}},
		{"registered the pod network endpoint", clWinNode("win-1", withIP("10.200.2.2")), ips(row("10.240.0.22", 24, "Ethernet"), row("10.200.2.2", 24, "vEthernet (cbr0_ep)")),
			Fail, []string{"an HNS-internal adapter"}},
		{"an address the host lacks", clWinNode("win-1", withIP("10.240.0.99")), ips(row("10.240.0.22", 24, "Ethernet")),
			Fail, []string{"InternalIP 10.240.0.99 is not an address of this host", "10.240.0.22/24 on \"Ethernet\""}},
		{"second NIC", clWinNode("win-1", withIP("192.168.50.4")), ips(row("192.168.50.4", 24, "Ethernet 2"), row("10.240.0.22", 24, "Ethernet")),
			Warn, []string{`on "Ethernet 2", which shares no subnet with the other nodes`, "the right-looking address is 10.240.0.22"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := clEv(map[string]string{
				evidence.PathNodes: string(clList(t, tc.node, peer)),
				evidence.NodeFile("win-1", evidence.FileIPAddresses): tc.ips,
			})
			f := clOne(t, nodeIP{}, "win-1", ev, tc.status, tc.want...)
			if tc.status >= Warn && (f.Fix == nil || f.Fix.Kind != Manual) {
				t.Errorf("fix = %+v", f.Fix)
			}
		})
	}
}
