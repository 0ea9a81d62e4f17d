package probes

import (
	"fmt"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// scheduling (NODE-SCHEDULING): the node is registered and takes pods. It also
// verifies the drain (cordoned: warn) and delete-node (not registered: skip) fixes.
type scheduling struct{}

func (scheduling) Spec() Spec {
	return Spec{ID: "NODE-SCHEDULING", Layouts: allLayouts(), Title: "node is registered and schedulable", FM: []string{},
		Reads: []evidence.Ref{evidence.ClusterNodes}}
}

func (scheduling) Check(c C) Finding {
	node := c.node
	nodes, _, bad := need(c, evidence.ClusterNodes)
	if bad != nil {
		return *bad
	}
	// A pasted node table shows SchedulingDisabled in STATUS: it judges from it too.
	var f Finding
	self, err := findNode(c.ev, nodes, node)
	switch {
	case err != nil:
		f = c.Skip("node " + node + " is not registered in the cluster (deleted, or not joined yet)")
	case self.Spec.Unschedulable:
		f = c.Warn("node is cordoned: it takes no new pods").With("uncordon it when the work is done: kubectl uncordon " + node)
	default:
		f = c.Pass("node is registered and schedulable")
	}
	f = f.Citing(evidence.PathNodes)
	return f
}

// drainFix cordons the node and evicts its pods (DaemonSet pods stay), as recreating an
// HNS network or restarting the runtime safely needs.
func drainFix(node string) *Fix {
	return &Fix{
		ID: "drain", Title: "Cordon and drain " + node, Kind: KubeAPI, Action: Drain,
		Commands: []string{
			"kubectl cordon " + node,
			fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data   # evictions, honouring PodDisruptionBudgets", node),
		},
		Disruptive: true,
		Impact:     "every pod on " + node + " except DaemonSet pods is evicted and the node takes no new pods until uncordoned",
		Verify:     "NODE-SCHEDULING", VerifyStatus: Exactly(Warn),
	}
}

// deleteNodeFix removes the Node object so a managed pool recreates the machine.
func deleteNodeFix(node string) *Fix {
	return &Fix{
		ID: "delete-node", Title: "Delete node " + node + " so the node pool recreates it", Kind: KubeAPI, Action: DeleteNode,
		Commands:   []string{"kubectl delete node " + node},
		Disruptive: true,
		Impact:     "the node and its pods leave the cluster; a managed pool (Anthos, AKS, EKS) replaces the machine, a hand-built node re-registers only when its kubelet restarts",
		Verify:     "NODE-SCHEDULING", VerifyStatus: Exactly(Skip),
		Notes: []string{"the documented workaround when an Anthos Windows node stays NotReady after a reboot"},
	}
}
