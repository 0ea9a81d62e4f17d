package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// poolFindings is a pool of seven nodes that fail alike: every node misses routes (one
// misses two), two have the same DNS template, one has no network, all run the kubelet.
func poolFindings() map[string][]probes.Finding {
	out := map[string][]probes.Finding{}
	for i := 1; i <= 7; i++ {
		n := fmt.Sprintf("win-%d", i)
		routes := probes.Finding{Probe: "NET-ROUTES", Node: n, Status: probes.Fail, Summary: "missing routes to 1 pod subnet",
			Details:  []string{"routes are added by the CNI when the node joins", fmt.Sprintf("no route to 10.244.%d.0/24", 10+i)},
			Evidence: []string{"nodes/" + n + "/routes.json"}}
		if i == 4 {
			routes.Summary = "missing routes to 2 pod subnets"
		}
		fs := []probes.Finding{routes,
			{Probe: "SVC-KUBELET", Node: n, Status: probes.Pass, Summary: "kubelet is running"}}
		if i == 2 || i == 5 {
			fs = append(fs, probes.Finding{Probe: "DNS-CONFIG", Node: n, Status: probes.Fail,
				Summary: "DNS server 10.0.0.10 is not kube-dns (10.96.0.10)", Evidence: []string{"nodes/" + n + "/cni-config.json"}})
		}
		if i == 6 {
			fs = append(fs, probes.Finding{Probe: "HNS-KPROXY-NET", Node: n, Status: probes.Warn, Summary: "kube-proxy names no network"})
		}
		out[n] = fs
	}
	return out
}

func poolModel(t *testing.T, w, h int) Model {
	names := make([]string, 0, 7)
	for i := 1; i <= 7; i++ {
		names = append(names, fmt.Sprintf("win-%d", i))
	}
	return testModel(t, Options{Nodes: names, Backend: newFakeBackend(poolFindings())}, w, h)
}

// TestByFindingPoolGolden runs the real program over the pool: b groups the fleet by
// finding, the routes group lists its seven nodes each with its own missing subnet, and
// win-4's other summary is its difference. The screen is a golden.
func TestByFindingPoolGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			tm := teatest.NewTestModel(t, poolModel(t, size[0], size[1]), teatest.WithInitialTermSize(size[0], size[1]))
			waitText(t, tm, "sweep done")
			tm.Send(runeKey('b'))
			waitText(t, tm, "By finding")
			// The program takes messages in order: the keys are handled before the quit.
			tm.Send(kTab)
			tm.Send(runeKey('j'))
			tm.Send(runeKey('j'))
			tm.Send(runeKey('j'))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			m := finalModel(t, tm)
			if n, f, ok := m.byF.selected(m.store); !ok || n.name != "win-4" || f.Probe != "NET-ROUTES" {
				t.Fatalf("selected %v %+v", n, f)
			}
			got := ansi.Strip(m.View().Content)
			for _, want := range []string{"NET-ROUTES fail · 7 nodes: win-1, win-2", "missing routes to 2 pod subnets", "no route to 10.244.11.0/24", "DNS-CONFIG"} {
				if !strings.Contains(got, want) {
					t.Errorf("screen lacks %q", want)
				}
			}
			requireGolden(t, fmt.Sprintf("by-finding-pool_%dx%d", size[0], size[1]), got+"\n")
		})
	}
}

// TestByFindingKeys: b and b again lands on the node and finding it started from; by
// finding, the filter narrows the groups, and r re-probes the node the detail shows.
func TestByFindingKeys(t *testing.T) {
	m := started(t, poolModel(t, 120, 40))
	m = press(t, m, runeKey('j'), kTab).Model // win-2, its first finding: DNS-CONFIG
	before, _ := m.selectedFinding()
	m = press(t, m, runeKey('b')).Model
	if !m.grouped {
		t.Fatal("b did not group by finding")
	}
	if f, ok := m.selectedFinding(); !ok || f.Ref() != before.Ref() {
		t.Fatalf("grouping moved the selection from %v to %v", before.Ref(), f.Ref())
	}
	if g, _ := m.byF.group(); g.Probe != before.Probe || len(g.Members) != 2 {
		t.Fatalf("group %s with %d nodes, want %s on 2", g.Probe, len(g.Members), before.Probe)
	}
	m = press(t, m, runeKey('b')).Model
	if f, ok := m.selectedFinding(); m.grouped || !ok || f.Ref() != before.Ref() {
		t.Fatalf("b again: grouped %v, selection %v, want %v", m.grouped, f.Ref(), before.Ref())
	}

	m = press(t, m, runeKey('b'), runeKey('/')).Model
	m = press(t, m, typeText("kubelet")...).Model
	m = press(t, m, kEnter).Model
	if len(m.byF.data) != 1 || m.byF.data[0].Probe != "SVC-KUBELET" || len(m.byF.data[0].Members) != 7 {
		t.Fatalf("filtered groups: %+v", m.byF.data)
	}
	be := m.opts.Backend.(*fakeBackend)
	// The members list still has the keys (tab went there before b): G is its last node.
	m = press(t, m, runeKey('G'), runeKey('r')).Model // press runs the sweep to its end
	if calls := be.probeCalls(); len(calls) < 2 || strings.Join(calls[len(calls)-1], ",") != "win-7" {
		t.Fatalf("r by finding re-probed %v, want the selected node win-7", calls)
	}
}
