package probes

import "fmt"

// drainFix cordons the node and evicts its pods (DaemonSet pods stay), as recreating an
// HNS network or restarting the runtime safely needs.
func drainFix(node string) *Fix {
	return &Fix{
		ID: "drain", Title: "Cordon and drain " + node, Kind: KubeAPI, Action: "drain",
		Commands: []string{
			"kubectl cordon " + node,
			fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data   # evictions, honouring PodDisruptionBudgets", node),
		},
		Disruptive: true,
		Impact:     "every pod on " + node + " except DaemonSet pods is evicted and the node takes no new pods until uncordoned",
		Verify:     "NODE-SCHEDULING", VerifyStatus: Warn.String(),
	}
}

// deleteNodeFix removes the Node object so a managed pool recreates the machine.
func deleteNodeFix(node string) *Fix {
	return &Fix{
		ID: "delete-node", Title: "Delete node " + node + " so the node pool recreates it", Kind: KubeAPI, Action: "delete-node",
		Commands:   []string{"kubectl delete node " + node},
		Disruptive: true,
		Impact:     "the node and its pods leave the cluster; a managed pool (Anthos, AKS, EKS) replaces the machine, a hand-built node re-registers only when its kubelet restarts",
		Verify:     "NODE-SCHEDULING", VerifyStatus: Skip.String(),
		Notes: []string{"the documented workaround when an Anthos Windows node stays NotReady after a reboot"},
	}
}
