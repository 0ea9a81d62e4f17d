package probes

import (
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
	b, err := ev.Read(collectors.ClusterNodes)
	if err != nil {
		return []Finding{c.problem(collectors.ClusterNodes, err)}
	}
	nodes, err := decode.Nodes(collectors.ClusterNodes, b)
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
