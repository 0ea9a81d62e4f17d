package report

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// sampleMeta has every field but Time, which stays zero so goldens are stable.
var sampleMeta = Meta{
	Tool:    "wintroubleshoot",
	Version: "0.3.0",
	Source:  "dir fixtures/scenarios/hns-missing",
	Cluster: "aks-prod",
	Context: "aks-prod-admin",
}

// sampleFindings is a realistic mixed run, deliberately out of report order so the
// goldens also prove the sort.
func sampleFindings() []probes.Finding {
	return []probes.Finding{
		{Probe: "KUBELET-SERVICE", Node: "win-1", Status: probes.Pass,
			Summary: "kubelet is running", Details: []string{"service kubelet: Running, StartType Automatic"},
			Evidence: []string{"nodes/win-1/services.json"}},
		{Probe: "HNS-NETWORK", Node: "win-1", Status: probes.Fail,
			Summary: `HNS network "azure" is missing`,
			Details: []string{
				`expected an L2Bridge network named "azure" (from cni-config.json)`,
				`found 1 network: "nat" (ICS)`,
				"pods scheduled on win-1 will stay ContainerCreating",
			},
			Evidence: []string{"nodes/win-1/hns-networks.json", "nodes/win-1/cni-config.json"},
			Fix: &probes.Fix{
				ID: "recreate-hns-network", Title: "Restart the CNI so it recreates the HNS network",
				Kind: probes.NodeScript, Action: "fix-restart-cni",
				Params: map[string]any{"network": "azure"},
				Commands: []string{
					"Stop-Service -Name kubelet",
					"Get-HnsNetwork | Where-Object Name -eq 'azure' | Remove-HnsNetwork",
					"Start-Service -Name kubelet; Write-Host `\"kubelet started`\"",
				},
				Verify: "HNS-NETWORK",
				Notes:  []string{"if it recurs after reboots, check that the CNI binary in C:\\k\\cni matches the config"},
			}},
		{Probe: "CALICO-FELIX", Node: "win-1", Status: probes.Skip,
			Summary: "not a Calico node"},
		{Probe: "COLLECT", Node: "win-3", Status: probes.Error,
			Summary:  "could not collect evidence from win-3",
			Details:  []string{"winrm: dial tcp 10.240.0.7:5986: i/o timeout", "other nodes were judged; re-run with --node win-3 once it is reachable"},
			Evidence: []string{"nodes/win-3/collect-error.txt"}},
		{Probe: "NODE-PODCIDR", Node: "win-2", Status: probes.Fail,
			Summary:  "node has no podCIDR",
			Details:  []string{"spec.podCIDR is empty; the CNI cannot allocate pod IPs", "other Windows nodes use 10.244.0.0/16 (e.g. win-1: 10.244.1.0/24)"},
			Evidence: []string{"cluster/nodes.json"},
			Fix: &probes.Fix{
				ID: "patch-podcidr", Title: "Assign podCIDR 10.244.3.0/24 to win-2",
				Kind: probes.KubeAPI, Action: "patch-podcidr",
				Params:   map[string]any{"node": "win-2", "podCIDR": "10.244.3.0/24"},
				Commands: []string{`kubectl patch node win-2 --type merge -p '{"spec":{"podCIDR":"10.244.3.0/24","podCIDRs":["10.244.3.0/24"]}}'`},
				Verify:   "NODE-PODCIDR",
				Precheck: "spec.podCIDR is still empty (it is immutable once set)",
				Notes: []string{
					"the lasting fix: run kube-controller-manager with --allocate-node-cidrs=true",
					"pick a range no other node uses; the tool chose the first free /24",
				},
			}},
		{Probe: "HNS-STALE-ENDPOINTS", Node: "win-2", Status: probes.Warn,
			Summary:  "412 HNS endpoints, 37 pods: 375 endpoints are stale",
			Details:  []string{"stale endpoints slow kube-proxy syncs (last sync took 48s)"},
			Evidence: []string{"nodes/win-2/hns-networks.json", "nodes/win-2/kube-proxy.log"},
			// A causal link as the engine sets it, so the goldens show the folding.
			CausedBy: []probes.Ref{{Probe: "NODE-PODCIDR", Node: "win-2"}},
			Fix: &probes.Fix{
				ID: "restart-hns", Title: "Restart HNS to drop stale endpoints",
				Kind: probes.NodeScript, Action: "fix-restart-hns",
				Commands:   []string{"Restart-Service -Name hns -Force", "Restart-Service -Name kubeproxy"},
				Disruptive: true,
				Impact:     "every pod on win-2 loses networking for about 30 seconds",
				Verify:     "HNS-STALE-ENDPOINTS",
				Choices: []*probes.Fix{{
					ID: "drain-reboot", Title: "Drain win-2 first, then restart HNS",
					Kind: probes.KubeAPI, Action: "drain",
					Commands: []string{"kubectl drain win-2 --ignore-daemonsets --delete-emptydir-data"},
					Verify:   "HNS-STALE-ENDPOINTS",
				}},
			}},
		{Probe: "OS-BUILD", Node: "win-2", Status: probes.Pass,
			Summary: "Windows Server 2022 (build 20348.2849) matches the pause image"},
		{Probe: "KUBELET-SERVICE", Node: "win-2", Status: probes.Pass, Summary: "kubelet is running"},
		{Probe: "WINDOWS-DAEMONSETS", Node: "", Status: probes.Warn,
			Summary:  "DaemonSet kube-system/kube-proxy has no nodeSelector | it also targets Windows nodes",
			Details:  []string{"Linux-only DaemonSets without kubernetes.io/os=linux keep pods Pending on win-1, win-2"},
			Evidence: []string{"cluster/daemonsets.json"},
			Fix: &probes.Fix{
				ID: "ds-nodeselector", Title: "Add a Linux nodeSelector to the DaemonSet",
				Kind: probes.Manual, Action: "advice",
				Notes: []string{"set spec.template.spec.nodeSelector: {kubernetes.io/os: linux}"},
			}},
	}
}

// sampleExcerpts feeds markdown's evidence excerpt slot: one short JSON file and one
// log long enough to be truncated.
func sampleExcerpts() map[string]string {
	var log strings.Builder
	for i := range 55 {
		fmt.Fprintf(&log, "I0102 03:%02d:00.000000 4242 proxier.go:1123] syncProxyRules took %ds\r\n", i, 40+i%9)
	}
	return map[string]string{
		"nodes/win-1/hns-networks.json": "\ufeff[{\"Name\":\"nat\",\"Type\":\"ICS\",\"ID\":\"6b2d6e1a-0c5e-4b0a-9f53-2b3c3f1f9d11\"}]\r\n",
		"nodes/win-2/kube-proxy.log":    log.String(),
	}
}
