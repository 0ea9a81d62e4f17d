package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// FindingGroup is one probe's judgement at one status across the nodes ("NET-ROUTES
// fails on 7 nodes"), with what sets each node's copy apart: the fleet grouped by
// finding rather than by node, as the screen's by-finding view shows it.
type FindingGroup struct {
	Probe   string
	Status  probes.Status
	Members []probes.Finding // one per node, in node order
	// Summary is the summary most members give (on a tie, the first in node order).
	Summary string
	// Differ is, per node, what only some members say: the node's summary when it is not
	// Summary, then its detail lines that not every member has. A node with nothing of
	// its own has no entry.
	Differ map[string][]string
	// Consequence says that the members follow from other findings shown (CausedBy):
	// fixing those should clear the group. The same probe failing as a root cause on
	// other nodes is a group of its own, listed before.
	Consequence bool
}

// Nodes is "7 nodes: win-1, win-2, …", or the one node's name.
func (g FindingGroup) Nodes() string {
	if len(g.Members) == 1 {
		return NodeLabel(g.Members[0].Node)
	}
	return nodesPhrase(g.Members)
}

// GroupByFinding groups findings by probe, status and whether something else shown
// explains them (a consequence): worst first, root causes before
// their consequences, then the groups spanning most nodes, then by probe, so the same
// findings always give the same order.
// Unlike the reports' fleet entries, a group is not split by summary: the view is about
// where a probe fails, and the summaries that differ are what Differ lists.
func GroupByFinding(findings []probes.Finding) []FindingGroup {
	type key struct {
		probe  string
		status probes.Status
		caused bool
	}
	graph := probes.NewGraph(findings)
	byKey := map[key]*FindingGroup{}
	var keys []key
	for _, f := range findings {
		k := key{f.Probe, f.Status, f.Status >= probes.Warn && len(graph.Causes(f)) > 0}
		g, ok := byKey[k]
		if !ok {
			g = &FindingGroup{Probe: f.Probe, Status: f.Status, Consequence: k.caused}
			byKey[k] = g
			keys = append(keys, k)
		}
		g.Members = append(g.Members, f)
	}
	out := make([]FindingGroup, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		slices.SortStableFunc(g.Members, func(a, b probes.Finding) int { return strings.Compare(a.Node, b.Node) })
		g.Summary = commonSummary(g.Members)
		_, differ := commonDetails(g.Members)
		g.Differ = map[string][]string{}
		for _, f := range g.Members {
			var own []string
			if f.Summary != g.Summary {
				own = append(own, f.Summary)
			}
			if own = append(own, differ[f.Node]...); len(own) > 0 {
				g.Differ[f.Node] = own
			}
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b FindingGroup) int {
		return cmp.Or(cmp.Compare(b.Status, a.Status), compareBool(a.Consequence, b.Consequence),
			cmp.Compare(len(b.Members), len(a.Members)), strings.Compare(a.Probe, b.Probe))
	})
	return out
}

// commonSummary is the summary most members give; on a tie, the first in their order.
func commonSummary(members []probes.Finding) string {
	count := map[string]int{}
	best := ""
	for _, f := range members {
		count[f.Summary]++
		if count[f.Summary] > count[best] {
			best = f.Summary
		}
	}
	return best
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
