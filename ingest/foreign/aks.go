package foreign

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
)

// AKS's collect-windows-logs.ps1 (Azure/AgentBaker staging/cse/windows/debug/
// collect-windows-logs.ps1 @ 06836ee) ends with `Compress-Archive -LiteralPath $paths
// -DestinationPath "$env:computername-<yyyyMMdd-HHmmss>_logs.zip"`: every file at the top
// of the zip by its own name, folders ($ctrLogsDirectory, collectlogs.ps1's adapters/,
// winevt/, ...) as folders. It holds:
//
//	c:\k\*.log* and the locked logs copied first: kubelet.log/.err.log, kubeproxy.log/.err.log,
//	  containerd.log/.err.log, azure-vnet.log, csi-proxy.log, ... (nssm writes each service's
//	  stdout to X.log and stderr, where klog writes, to X.err.log)
//	kubeclusterconfig.json (the node's cluster settings: Kubernetes.Network.ServiceCidr, ClusterCidr, DnsIp)
//	10-azure.conflist (C:\k\azurecni\netconf), config.toml (containerd's, copied)
//	<ts>-cri-containerd-images.txt (crictl images), -pods.txt (crictl pods), -containers.txt (crictl ps -a)
//	kubectl-get-nodes.log, kubectl-describe-nodes.log, kubectl-describe-pods.log (since 2023-12, a509f13)
//	collect-windows-logs-output.log (its own transcript, since 2023-12, ea3ca74)
//	CustomDataSetupScript.log (C:\AzureData, the node's provisioning)
//	and collectlogs.ps1's files, run first (`& c:\k\debug\collectlogs.ps1`)
func aksCollector() collector {
	return collector{
		name:     "collect-windows-logs.ps1 (AKS)",
		upstream: "Azure/AgentBaker staging/cse/windows/debug/collect-windows-logs.ps1 @ 06836ee",
		roots: func(files map[string]bool) []string {
			seen := map[string]bool{}
			var out []string
			for _, r := range append(withRoot(files, "collect-windows-logs-output.log"), withRoot(files, "kubeclusterconfig.json")...) {
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
			}
			return out
		},
		wants: func(rel string) bool {
			if strings.Contains(rel, "/") {
				return false
			}
			switch rel {
			case "kubelet.err.log", "kubeproxy.err.log", "containerd.err.log", "CustomDataSetupScript.log", "panic.log",
				"10-azure.conflist", "config.toml", "kubeclusterconfig.json", "kubectl-describe-nodes.log":
				return true
			}
			return strings.HasSuffix(rel, "-cri-containerd-images.txt") || collectlogsCollector().wants(rel)
		},
		known: append(aksKnown(), collectlogsKnown()...),
		read:  readAKS,
	}
}

func readAKS(m *mapper) {
	m.b.Version = aksVersion(m.rels)
	readCollectlogs(m)
	if m.log("kubelet.err.log", evidence.KubeletLog, 200) {
		m.log("kubelet.err.log", evidence.LogKubelet, 0)
	}
	if m.log("kubeproxy.err.log", evidence.KubeProxyLog, 200) {
		m.log("kubeproxy.err.log", evidence.LogKubeProxy, 0)
	}
	if !m.log("containerd.err.log", evidence.LogRuntime, 0) {
		m.log("panic.log", evidence.LogRuntime, 0)
	}
	m.log("CustomDataSetupScript.log", evidence.LogStartup, 0)
	m.raw("10-azure.conflist", evidence.CNIConfig)
	m.raw("config.toml", evidence.ContainerdConfig)
	for _, rel := range m.rels {
		if strings.HasSuffix(rel, "-cri-containerd-images.txt") {
			m.paste(pasted{rel: rel, command: "crictl images"})
		}
	}
	aksClusterConfig(m)
	// The zip is named after the computer, which AKS names its node after.
	re := regexp.MustCompile(`^(.+)-\d{8}-\d{6}_logs\.zip$`)
	if sub := re.FindStringSubmatch(path.Base(m.b.Source)); sub != nil {
		m.hosts = append([]string{strings.ToLower(sub[1])}, m.hosts...)
		m.b.NodeFrom = "the zip's name ($env:computername-<time>_logs.zip)"
	}
	if nodeName := describedNode(m); nodeName != "" {
		m.hosts = append([]string{nodeName}, m.hosts...)
		m.b.NodeFrom = "kubectl-describe-nodes.log"
	}
}

// describedNode is the node kubectl-describe-nodes.log describes (its Name line), which
// it also gives as cluster/nodes.json where no cluster dump is at hand.
func describedNode(m *mapper) string {
	t, ok := m.text("kubectl-describe-nodes.log")
	if !ok {
		return ""
	}
	re := regexp.MustCompile(`(?m)^Name:\s+(\S+)\s*$`)
	sub := re.FindSubmatch(t)
	if sub == nil {
		return ""
	}
	name := string(sub[1])
	m.paste(pasted{rel: "kubectl-describe-nodes.log", command: "kubectl describe node " + name})
	return name
}

// aksClusterConfig reads the node's own cluster settings (kubeclusterconfig.json, which
// AgentBaker's kubernetesfunc.ps1 writes and kubeletstart.ps1 reads).
func aksClusterConfig(m *mapper) {
	t, ok := m.text("kubeclusterconfig.json")
	if !ok {
		return
	}
	var kc struct {
		Kubernetes struct {
			Network struct{ ServiceCidr, ClusterCidr, DnsIp string }
		}
	}
	if err := json.Unmarshal(t, &kc); err != nil {
		m.tried["kubeclusterconfig.json"] = "not JSON: " + err.Error()
		return
	}
	n := kc.Kubernetes.Network
	var c clusterconfig.Config
	src := "kubeclusterconfig.json (AKS): Kubernetes.Network."
	c.Set(clusterconfig.KeyServiceCIDR, n.ServiceCidr, src+"ServiceCidr")
	c.Set(clusterconfig.KeyClusterCIDR, n.ClusterCidr, src+"ClusterCidr")
	c.Set(clusterconfig.KeyKubeDNS, n.DnsIp, src+"DnsIp")
	if c.Sources == nil {
		m.tried["kubeclusterconfig.json"] = "no Kubernetes.Network settings in it"
		return
	}
	if b, err := c.Marshal(); err == nil {
		m.put(evidence.ClusterConfig, b, "kubeclusterconfig.json")
	}
}

// aksVersion names the layout by the files each change of the script added.
func aksVersion(rels []string) string {
	has := map[string]bool{}
	for _, r := range rels {
		has[r] = true
		if strings.HasSuffix(r, "-containerd-toml.txt") {
			has["containerd-toml"] = true
		}
	}
	switch {
	case has["containerd-toml"]:
		return "2024-04 or later (containerd-toml.txt: a215f0e)"
	case has["kubectl-describe-nodes.log"]:
		return "2023-12 or later (kubectl-describe-nodes.log: a509f13)"
	case has["collect-windows-logs-output.log"]:
		return "2023-12 or later (collect-windows-logs-output.log: ea3ca74)"
	}
	return "before 2023-12 (no transcript in the zip)"
}

func aksKnown() []knownFile {
	const none = "no probe reads it"
	return []knownFile{
		{"collect-windows-logs-output.log", "the script's own transcript"},
		{"kubelet.log", "kubeletstart.ps1's own output (nssm's stdout); the kubelet's klog lines are kubelet.err.log"},
		{"kubeproxy.log", "kubeproxystart.ps1's own output; kube-proxy's klog lines are kubeproxy.err.log"},
		{"containerd.log", "containerd's stdout; its log lines are containerd.err.log"},
		{"*.log", "a component log " + none},
		{"*.log.*", "a rotated log: the current one is read"},
		{"*_services.csv", "Service Control Manager events filtered to containerd/kub messages, with reboots and crashes, without Level and ProviderName: winevent-scm.json needs them"},
		{"*_hyper-v-compute-operational.csv", "Hyper-V-Compute events as CSV: " + none},
		{"*.evtx", "binary event logs: this reader does not parse EVTX"},
		{"*_pagefile.txt", none}, {"*-disk-usage-all-drives.txt", none}, {"disk-usage.txt", "disk sizes in GB, rounded: disk.json needs bytes"},
		{"available-memory.txt", none}, {"processes.txt", "Get-Process as a table: processes.json needs each command line"},
		{"process-*.txt", none},
		{"*-ctr-logs/*", "ctr's lists of containerd objects: " + none},
		{"*-cri-containerd-pods.txt", "crictl pods without -o json: containers.json needs the pod UIDs"},
		{"*-cri-containerd-containers.txt", "crictl ps -a: " + none},
		{"*-cri-containerd-imageFsInfo.txt", none},
		{"*-shimdiag-list-with-pids.txt", none}, {"shimdiag.txt", none},
		{"*-hcsdiag-list.txt", none}, {"*-hnsdiag-list.txt", "hnsdiag list all: network.txt and endpoint.txt hold the same as JSON"},
		{"*-containerd-info.txt", none}, {"*-containerd-toml.txt", "`containerd config default`, not the node's config (config.toml is read)"},
		{"kubectl-get-nodes.log", "kubectl get nodes -o wide: kubectl-describe-nodes.log (or a cluster dump) says more"},
		{"kubectl-describe-pods.log", none},
		{"azure-vnet.json", "Azure CNI state: " + none}, {"azure-vnet-ipam.json", "Azure CNI IPAM state: " + none},
		{"bootstrap-config", none}, {"credential-provider-config.yaml", none},
		{"*.zip", "an archive inside the zip (WER, minidumps, extension logs): not opened"},
		{"*.db", "containerd's snapshot metadata: " + none},
		{"*-all-snapshot-folder-size.txt", none},
	}
}
