package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Root-cause-first ordering. The engine links findings (CausedBy, from probes.CauseRules);
// the report reads only those links, so a JSON report read back orders the same way.

// RootCause is one root cause and what fixing it should also clear.
type RootCause struct {
	probes.Ref
	Status  probes.Status `json:"status"`
	Summary string        `json:"summary"`
	Clears  []probes.Ref  `json:"clears"` // consequences, nearest first; [] when none
}

// RootCauses lists the findings to fix first: failures (and errors) nothing else
// explains, and warnings that explain something, worst first. Standalone warnings are
// not listed: they are shown with their node as before.
func RootCauses(findings []probes.Finding) []RootCause {
	g := probes.NewGraph(findings)
	var out []RootCause
	for _, f := range g.Roots() {
		clears := g.Clears(f.Ref())
		if f.Status < probes.Fail && len(clears) == 0 {
			continue
		}
		if clears == nil {
			clears = []probes.Ref{}
		}
		out = append(out, RootCause{Ref: f.Ref(), Status: f.Status, Summary: f.Summary, Clears: clears})
	}
	// Worst first, then the cause whose fix clears most: that is the one to start with.
	slices.SortStableFunc(out, func(a, b RootCause) int {
		return cmp.Or(cmp.Compare(b.Status, a.Status), cmp.Compare(len(b.Clears), len(a.Clears)))
	})
	return out
}

// foldByCause reorders one node's findings (already sorted worst first): each root
// cause, then the consequences on the same node it explains, depth first, then the
// rest in their order. A finding explained by several causes comes under the first.
func foldByCause(g probes.Graph, node []probes.Finding) []probes.Finding {
	idx := map[probes.Ref]int{}
	for i, f := range node {
		idx[f.Ref()] = i
	}
	placed := make([]bool, len(node))
	out := make([]probes.Finding, 0, len(node))
	var place func(i int)
	place = func(i int) {
		if placed[i] {
			return
		}
		placed[i] = true
		out = append(out, node[i])
		var kids []int
		for _, e := range g.Clears(node[i].Ref()) {
			if j, ok := idx[e]; ok && slices.Contains(node[j].CausedBy, node[i].Ref()) {
				kids = append(kids, j)
			}
		}
		slices.Sort(kids) // report order among siblings
		for _, j := range kids {
			place(j)
		}
	}
	var roots []int
	for i, f := range node {
		if g.IsRoot(f) {
			roots = append(roots, i)
		}
	}
	slices.SortStableFunc(roots, func(a, b int) int {
		return cmp.Or(cmp.Compare(node[b].Status, node[a].Status),
			cmp.Compare(len(g.Clears(node[b].Ref())), len(g.Clears(node[a].Ref()))))
	})
	for _, i := range roots {
		place(i)
	}
	for i := range node {
		if !placed[i] && node[i].Status >= probes.Warn && len(sameNodeCauses(g, node[i])) == 0 {
			place(i) // explained only from another node: it leads its own run here
		}
	}
	for i := range node {
		place(i)
	}
	return out
}

func sameNodeCauses(g probes.Graph, f probes.Finding) []probes.Ref {
	var out []probes.Ref
	for _, c := range g.Causes(f) {
		if c.Node == f.Node {
			out = append(out, c)
		}
	}
	return out
}

// isConsequence says whether a finding is explained by another finding in the report.
func isConsequence(g probes.Graph, f probes.Finding) bool {
	return f.Status >= probes.Warn && len(g.Causes(f)) > 0
}

// refList names refs relative to a node: probe IDs alone when on that node.
func refList(rs []probes.Ref, node string) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.Node == node {
			parts[i] = r.Probe
		} else {
			parts[i] = r.String()
		}
	}
	return strings.Join(parts, ", ")
}

// RootCauseChanges compares the root causes of two runs (two bundles): those only in after
// appeared, those only in before cleared. Each list is in RootCauses order.
func RootCauseChanges(before, after []probes.Finding) (appeared, cleared []RootCause) {
	b, a := RootCauses(before), RootCauses(after)
	has := func(rs []RootCause, r probes.Ref) bool {
		return slices.ContainsFunc(rs, func(x RootCause) bool { return x.Ref == r })
	}
	for _, r := range a {
		if !has(b, r.Ref) {
			appeared = append(appeared, r)
		}
	}
	for _, r := range b {
		if !has(a, r.Ref) {
			cleared = append(cleared, r)
		}
	}
	return appeared, cleared
}
