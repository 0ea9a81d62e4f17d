package engine

import (
	"context"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// consequences lists the findings on a node that a finding explains, as the evidence in
// the tree shows them now (before a fix runs): what fixing it should also clear. Only the
// node's own findings are judged; an effect on another node clears when that node is
// judged again.
func (x *Fixer) consequences(f probes.Finding) []probes.Ref {
	fs := x.Engine.Registry.Run(f.Node, x.Engine.Tree.Evidence())
	Link(probes.CauseRules(), fs)
	return probes.NewGraph(fs).Clears(f.Ref())
}

// reverifyClears judges each expected consequence again, re-collecting what its probe
// reads, and returns those that now pass (or skip). A consequence that cannot be judged
// again is simply not counted as cleared.
func (x *Fixer) reverifyClears(ctx context.Context, node string, expected []probes.Ref) []probes.Ref {
	var cleared []probes.Ref
	for _, r := range expected {
		if r.Node != node {
			continue
		}
		p, ok := x.Engine.Registry.Get(r.Probe)
		if !ok {
			continue
		}
		after, err := x.judge(ctx, node, p)
		if err == nil && after.Status < probes.Warn {
			cleared = append(cleared, r)
		}
	}
	return cleared
}

// clearedPhrase is the tail of an Outcome's line: "; also cleared: HNS-NETWORK, NET-ROUTES".
func clearedPhrase(rs []probes.Ref) string {
	if len(rs) == 0 {
		return ""
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Probe
	}
	return "; also cleared: " + strings.Join(names, ", ")
}
