package probes

import (
	"fmt"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// SchedulingProbe (NODE-SCHEDULING): the node is registered and takes pods. It also
// verifies the drain (cordoned: warn) and delete-node (not registered: skip) fixes.
type SchedulingProbe struct{}

func (SchedulingProbe) ID() string      { return "NODE-SCHEDULING" }
func (SchedulingProbe) Title() string   { return "node is registered and schedulable" }
func (SchedulingProbe) Needs() []string { return []string{collectors.ClusterNodes} }

func (p SchedulingProbe) Check(node string, ev collectors.Evidence) []Finding {
	c := check{p.ID(), node, ev}
	nodes, err := readDecode(ev, collectors.ClusterNodes, decode.Nodes)
	if err != nil {
		return []Finding{c.problem(collectors.ClusterNodes, err)}
	}
	var f Finding
	self, err := decode.FindNode(nodes, node)
	switch {
	case err != nil:
		f = c.finding(Skip, "node "+node+" is not registered in the cluster (deleted, or not joined yet)")
	case self.Spec.Unschedulable:
		f = c.finding(Warn, "node is cordoned: it takes no new pods",
			"uncordon it when the work is done: kubectl uncordon "+node)
	default:
		f = c.finding(Pass, "node is registered and schedulable")
	}
	f.Evidence = []string{collectors.ClusterNodes}
	return []Finding{f}
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
		Verify:     "NODE-SCHEDULING", VerifyStatus: Warn.String(),
	}
}

// deleteNodeFix removes the Node object so a managed pool recreates the machine.
func deleteNodeFix(node string) *Fix {
	return &Fix{
		ID: "delete-node", Title: "Delete node " + node + " so the node pool recreates it", Kind: KubeAPI, Action: DeleteNode,
		Commands:   []string{"kubectl delete node " + node},
		Disruptive: true,
		Impact:     "the node and its pods leave the cluster; a managed pool (Anthos, AKS, EKS) replaces the machine, a hand-built node re-registers only when its kubelet restarts",
		Verify:     "NODE-SCHEDULING", VerifyStatus: Skip.String(),
		Notes: []string{"the documented workaround when an Anthos Windows node stays NotReady after a reboot"},
	}
}
