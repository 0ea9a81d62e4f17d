package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestGroupByFinding: one group per probe and status, worst and widest first; each
// node's own summary and detail lines are its differences, the shared ones are not.
func TestGroupByFinding(t *testing.T) {
	fs := []probes.Finding{
		{Probe: "NET-ROUTES", Node: "win-3", Status: probes.Fail, Summary: "missing routes to 1 pod subnet", Details: []string{"shared", "no route to 10.0.5.0/24"}},
		{Probe: "NET-ROUTES", Node: "win-1", Status: probes.Fail, Summary: "missing routes to 1 pod subnet", Details: []string{"shared", "no route to 10.0.4.0/24"}},
		{Probe: "NET-ROUTES", Node: "win-2", Status: probes.Fail, Summary: "missing routes to 2 pod subnets", Details: []string{"shared"}},
		{Probe: "NET-ROUTES", Node: "win-4", Status: probes.Pass, Summary: "routes present"},
		{Probe: "DNS-CONFIG", Node: "win-1", Status: probes.Fail, Summary: "DNS server 10.0.0.10 is not kube-dns"},
		{Probe: "NODE-READY", Node: "win-1", Status: probes.Error, Summary: "cannot read"},
	}
	gs := GroupByFinding(fs)
	var order []string
	for _, g := range gs {
		order = append(order, g.Probe+" "+g.Status.String())
	}
	if want := []string{"NODE-READY error", "NET-ROUTES fail", "DNS-CONFIG fail", "NET-ROUTES pass"}; !slices.Equal(order, want) {
		t.Fatalf("groups %v, want %v", order, want)
	}
	routes := gs[1]
	if routes.Nodes() != "3 nodes: win-1, win-2, win-3" || routes.Summary != "missing routes to 1 pod subnet" {
		t.Errorf("nodes %q, summary %q", routes.Nodes(), routes.Summary)
	}
	want := map[string][]string{
		"win-1": {"no route to 10.0.4.0/24"},
		"win-2": {"missing routes to 2 pod subnets"},
		"win-3": {"no route to 10.0.5.0/24"},
	}
	for n, w := range want {
		if !slices.Equal(routes.Differ[n], w) {
			t.Errorf("%s differs by %q, want %q", n, routes.Differ[n], w)
		}
	}
	if gs[2].Nodes() != "win-1" || len(gs[2].Differ) != 0 {
		t.Errorf("a one-node group: %q, differences %v", gs[2].Nodes(), gs[2].Differ)
	}
	// A consequence's group comes after its cause's, though it sorts first by name.
	// The same probe failing as a root cause elsewhere is a group of its own.
	linked := []probes.Finding{
		{Probe: "HNS-KPROXY-NET", Node: "win-1", Status: probes.Fail, CausedBy: []probes.Ref{{Probe: "HNS-NETWORK", Node: "win-1"}}},
		{Probe: "HNS-NETWORK", Node: "win-1", Status: probes.Fail},
		{Probe: "HNS-KPROXY-NET", Node: "win-2", Status: probes.Fail},
	}
	var lo []string
	for _, g := range GroupByFinding(linked) {
		lo = append(lo, fmt.Sprintf("%s %v %d", g.Probe, g.Consequence, len(g.Members)))
	}
	if want := []string{"HNS-KPROXY-NET false 1", "HNS-NETWORK false 1", "HNS-KPROXY-NET true 1"}; !slices.Equal(lo, want) {
		t.Errorf("linked groups %v, want %v", lo, want)
	}
	// Input order does not matter.
	slices.Reverse(fs)
	if again := GroupByFinding(fs); again[1].Members[0].Node != "win-1" || len(again) != len(gs) {
		t.Errorf("reversed input regrouped differently: %+v", again[1])
	}
}
