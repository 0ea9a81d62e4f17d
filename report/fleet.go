package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// The fleet seen as a fleet: the same finding on many nodes is one entry naming the
// nodes, with what differs between them listed per node. Only findings outside any causal
// chain are merged, so a root cause keeps its consequences folded under it.

// fleetEntry is one finding, or the same finding on several nodes.
type fleetEntry struct {
	first   probes.Finding   // shown in full (its evidence and fix)
	members []probes.Finding // every node's copy, first included, in report order
}

// sameKey is what must match for two nodes' findings to be one entry: the probe, the
// status, the summary and the fix's title. Details may differ; they are listed per node.
func sameKey(f probes.Finding) string {
	fix := ""
	if f.Fix != nil {
		fix = f.Fix.Title
	}
	return strings.Join([]string{f.Probe, f.Status.String(), f.Summary, fix}, "\x00")
}

// fleetEntries groups the findings shown in full (warn and worse) in report order: an
// entry stands where its first node's copy stood.
func fleetEntries(g probes.Graph, sorted []probes.Finding) []fleetEntry {
	var out []fleetEntry
	at := map[string]int{}
	for _, f := range sorted {
		if f.Status < probes.Warn {
			continue
		}
		linked := len(g.Causes(f)) > 0 || len(g.Clears(f.Ref())) > 0
		k := sameKey(f)
		if i, ok := at[k]; ok && !linked {
			out[i].members = append(out[i].members, f)
			continue
		}
		if !linked {
			at[k] = len(out)
		}
		out = append(out, fleetEntry{first: f, members: []probes.Finding{f}})
	}
	return out
}

// nodesPhrase is "7 nodes: win-1, win-2, …".
func nodesPhrase(fs []probes.Finding) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = NodeLabel(f.Node)
	}
	return fmt.Sprintf("%d nodes: %s", len(fs), strings.Join(names, ", "))
}

// commonDetails splits the members' detail lines into those every member has and, per
// member, the ones only some have.
func commonDetails(members []probes.Finding) (common []string, differ map[string][]string) {
	differ = map[string][]string{}
	for _, d := range members[0].Details {
		if !slices.Contains(common, d) && all(members, func(f probes.Finding) bool { return slices.Contains(f.Details, d) }) {
			common = append(common, d)
		}
	}
	for _, f := range members {
		for _, d := range f.Details {
			if !slices.Contains(common, d) {
				differ[f.Node] = append(differ[f.Node], d)
			}
		}
	}
	return common, differ
}

func all(fs []probes.Finding, ok func(probes.Finding) bool) bool {
	for _, f := range fs {
		if !ok(f) {
			return false
		}
	}
	return true
}

// quietByProbe is the passing list folded per probe and status: "NODE-IP: pass on 17
// nodes (a, b, …)", one line each, in report order of first appearance.
func quietByProbe(quiet []probes.Finding, everyNode []string) []string {
	type key struct {
		probe  string
		status probes.Status
	}
	var order []key
	nodes := map[key][]string{}
	summary := map[key]string{}
	for _, f := range quiet {
		k := key{f.Probe, f.Status}
		if _, ok := nodes[k]; !ok {
			order = append(order, k)
			summary[k] = f.Summary
		}
		nodes[k] = append(nodes[k], NodeLabel(f.Node))
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if c := strings.Compare(a.probe, b.probe); c != 0 {
			return c
		}
		return int(b.status) - int(a.status)
	})
	out := make([]string, len(order))
	for i, k := range order {
		ns := nodes[k]
		if len(ns) == 1 {
			out[i] = fmt.Sprintf("%s %s on %s: %s", k.status.Glyph(), mdInline(k.probe), mdInline(ns[0]), mdInline(summary[k]))
			continue
		}
		if others := missingFrom(everyNode, ns); len(others) < len(ns) {
			// Most nodes agree: name the few that do not, which is what a reader looks for.
			out[i] = fmt.Sprintf("%s %s %s on %d nodes: all but %s", k.status.Glyph(), mdInline(k.probe), k.status, len(ns), mdInline(orNone(others)))
			continue
		}
		out[i] = fmt.Sprintf("%s %s %s on %d nodes: %s", k.status.Glyph(), mdInline(k.probe), k.status, len(ns), mdInline(strings.Join(ns, ", ")))
	}
	return out
}

// missingFrom lists the names of all that are not in some, in all's order.
func missingFrom(all, some []string) []string {
	var out []string
	for _, n := range all {
		if !slices.Contains(some, n) {
			out = append(out, n)
		}
	}
	return out
}

func orNone(ns []string) string {
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// nodeLabels lists the report's nodes, by label, in report order.
func nodeLabels(sorted []probes.Finding) []string {
	var out []string
	for _, g := range groupByNode(sorted) {
		out = append(out, NodeLabel(g.node))
	}
	return out
}
