package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestCauseRulesAcyclic: the rule table names only registered probes and has no cycle;
// a table with one is refused.
func TestCauseRulesAcyclic(t *testing.T) {
	reg := probes.Default()
	if err := CheckRules(reg, probes.CauseRules()); err != nil {
		t.Fatal(err)
	}
	cyclic := append(probes.CauseRules(), probes.CauseRule{Cause: "NODE-READY", CauseAt: probes.Fail, Effect: "NODE-PODCIDR"})
	err := CheckRules(reg, cyclic)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a cyclic table was accepted: %v", err)
	}
	if err := CheckRules(reg, []probes.CauseRule{{Cause: "NOPE", Effect: "NODE-READY"}}); err == nil {
		t.Fatal("a rule naming an unknown probe was accepted")
	}
}

// scenarioCauses is a scenario's causes.json, written by the generator from the story's
// Roots (fixtures/scenarios/gen): the root causes to fix first and the failures each fix
// also clears.
type scenarioCauses struct {
	RootCauses []struct {
		probes.Ref
		Clears []probes.Ref `json:"clears"`
	} `json:"rootCauses"`
}

// scenariosDir is the scenarios folder on disk: causes.json is read from there, and every
// folder holding a scenario.json is a scenario, whether or not it has a causes.json.
const scenariosDir = "../fixtures/scenarios"

func readCauses(name string) (scenarioCauses, error) {
	var c scenarioCauses
	b, err := os.ReadFile(filepath.Join(scenariosDir, name, "causes.json"))
	if err != nil {
		return c, fmt.Errorf("reading the root causes the story names (set Roots in fixtures/scenarios/gen and run it): %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("decoding %s/causes.json: %w", name, err)
	}
	return c, nil
}

func refStrings(rs []probes.Ref) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Node+"/"+r.Probe)
	}
	slices.Sort(out)
	return out
}

// TestScenarioRootCauses: for every scenario folder, the engine finds exactly the root
// causes its causes.json states (failures and errors nothing else explains), each clears
// exactly the failures listed under it, and every other failure is explained by a cause.
func TestScenarioRootCauses(t *testing.T) {
	entries, err := os.ReadDir(scenariosDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(scenariosDir, e.Name(), "scenario.json")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	if !slices.Equal(names, scenarios.Names()) {
		t.Fatalf("scenario folders %v, embedded %v", names, scenarios.Names())
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, err := readCauses(name)
			if err != nil {
				t.Fatal(err)
			}
			fsys, _, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := probes.NewGraph(fs)
			failing := func(rs []probes.Ref) []probes.Ref {
				var out []probes.Ref
				for _, r := range rs {
					if f, ok := g.Get(r); ok && f.Status >= probes.Fail {
						out = append(out, r)
					}
				}
				return out
			}
			got := map[string][]string{}
			for _, r := range report.RootCauses(fs) {
				if r.Status >= probes.Fail {
					got[r.Node+"/"+r.Probe] = refStrings(failing(r.Clears))
				}
			}
			wantRoots := map[string][]string{}
			for _, r := range want.RootCauses {
				wantRoots[r.Node+"/"+r.Probe] = refStrings(r.Clears)
			}
			if gk, wk := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(wantRoots)); !slices.Equal(gk, wk) {
				t.Errorf("root causes %v, causes.json states %v", gk, wk)
			}
			for root, w := range wantRoots {
				if c, ok := got[root]; ok && !slices.Equal(c, w) {
					t.Errorf("fixing %s clears %v, causes.json states %v", root, c, w)
				}
			}
			for _, f := range fs {
				if f.Status >= probes.Fail && !g.IsRoot(f) && len(g.Causes(f)) == 0 {
					t.Errorf("%s fails, is not a root and has no cause", f.Probe)
				}
			}
		})
	}
}

// TestLinkPodCIDRChain: the hard-way trap as the issue tells it: no podCIDR, so no
// l2bridge network, so no kube-proxy and no routes; fixing the podCIDR clears all four.
func TestLinkPodCIDRChain(t *testing.T) {
	fsys, _, _, err := scenarios.Load("podcidr-empty")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := probes.NewGraph(fs)
	var clears []string
	for _, r := range g.Clears(probes.Ref{Probe: "NODE-PODCIDR", Node: "win-1"}) {
		clears = append(clears, r.Probe)
	}
	slices.Sort(clears)
	if want := []string{"HNS-NETWORK", "NET-ROUTES", "SVC-KUBEPROXY"}; !slices.Equal(clears, want) {
		t.Errorf("fixing NODE-PODCIDR clears %v, want %v", clears, want)
	}
	// Linking again gives the same links: no stale or doubled causes.
	before := slices.Clone(fs)
	Link(probes.CauseRules(), fs)
	for i := range fs {
		if !slices.Equal(fs[i].CausedBy, before[i].CausedBy) {
			t.Errorf("%s: relinking changed %v to %v", fs[i].Probe, before[i].CausedBy, fs[i].CausedBy)
		}
	}
}

// TestLinkAcrossNodes: a missing route on one node to a peer without a podCIDR is
// explained by that peer's finding; an unreachable node's REACH explains the rest of it.
func TestLinkAcrossNodes(t *testing.T) {
	fs := []probes.Finding{
		{Probe: "NODE-PODCIDR", Node: "win-2", Status: probes.Fail, Summary: "node spec.podCIDR is empty"},
		{Probe: "NET-ROUTES", Node: "win-1", Status: probes.Fail, Summary: "missing routes",
			Details: []string{"win-2 has no podCIDR: no route can be added for it"}},
		{Probe: "NET-ROUTES", Node: "win-3", Status: probes.Fail, Summary: "missing routes to 10.0.5.0/24 (node-5)"},
		{Probe: probes.ReachID, Node: "win-4", Status: probes.Error, Summary: "node not reachable"},
		{Probe: "NODE-READY", Node: "win-4", Status: probes.Fail, Summary: "Ready=Unknown"},
	}
	Link(probes.CauseRules(), fs)
	if want := []probes.Ref{{Probe: "NODE-PODCIDR", Node: "win-2"}}; !slices.Equal(fs[1].CausedBy, want) {
		t.Errorf("win-1 routes caused by %v, want %v", fs[1].CausedBy, want)
	}
	if len(fs[2].CausedBy) != 0 {
		t.Errorf("win-3 routes to another peer linked to %v", fs[2].CausedBy)
	}
	if want := []probes.Ref{{Probe: probes.ReachID, Node: "win-4"}}; !slices.Equal(fs[4].CausedBy, want) {
		t.Errorf("win-4 NODE-READY caused by %v, want %v", fs[4].CausedBy, want)
	}
}

// TestCompareRanking: between the healthy SDN node and the one without a podCIDR, the
// files a probe judges differently come first, and HNS-NETWORK's files are among them.
func TestCompareRanking(t *testing.T) {
	load := func(name string) evidence.Evidence {
		fsys, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		return evidence.Evidence{FS: fsys}
	}
	ds := Compare(probes.Default(), load("healthy-sdn-l2bridge-docker"), "win-1", load("podcidr-empty"), "win-1")
	if len(ds) == 0 {
		t.Fatal("no differences found")
	}
	seenUnjudged := false
	found := false
	for _, d := range ds {
		if len(d.Judged) == 0 {
			seenUnjudged = true
		} else if seenUnjudged {
			t.Errorf("%s (judged differently by %v) ranks below a file no probe judges differently", d.Name, d.Judged)
		}
		if d.Name == "hns-networks.json" && slices.Contains(d.Judged, "HNS-NETWORK") {
			found = true
		}
	}
	if !found {
		t.Errorf("hns-networks.json not listed as judged differently by HNS-NETWORK: %+v", ds)
	}
	if same := Compare(probes.Default(), load("podcidr-empty"), "win-1", load("podcidr-empty"), "win-1"); len(same) != 0 {
		t.Errorf("a node against itself differs: %+v", same)
	}
}
