package probes_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// judged runs every probe over one scenario and indexes the findings by node and probe.
func judged(t *testing.T, name string) (map[string]probes.Finding, []scenarios.Expected) {
	t.Helper()
	fsys, meta, want, err := scenarios.Load(name)
	if err != nil {
		t.Fatalf("loading scenario %s: %v", name, err)
	}
	got, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
	if err != nil {
		t.Fatalf("analyzing %s: %v", name, err)
	}
	idx := map[string]probes.Finding{}
	for _, f := range got {
		key := f.Node + "/" + f.Probe
		if _, dup := idx[key]; dup {
			t.Errorf("%s: probe %s judged node %s twice", name, f.Probe, f.Node)
		}
		idx[key] = f
	}
	return idx, want
}

// TestScenarios: every probe's status on every scenario is the one expected.json records.
func TestScenarios(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			got, want := judged(t, name)
			for _, w := range want {
				f, ok := got[w.Node+"/"+w.Probe]
				if !ok {
					t.Errorf("%s on %s: no finding, expected %s", w.Probe, w.Node, w.Status)
					continue
				}
				if f.Status.String() != w.Status {
					t.Errorf("%s on %s: got %s (%s; %s), expected %s", w.Probe, w.Node, f.Status, f.Summary,
						strings.Join(f.Details, "; "), w.Status)
				}
				if f.Status >= probes.Warn && len(f.Evidence) == 0 && f.Probe != probes.ReachID {
					t.Errorf("%s on %s: %s finding names no evidence", w.Probe, w.Node, f.Status)
				}
			}
		})
	}
}

// TestRegistryCoverage: every probe passes somewhere and fails somewhere, every fix names
// a probe that exists and verifies it, and fixes show their commands.
func TestRegistryCoverage(t *testing.T) {
	reg := probes.Default()
	seen := map[string]map[probes.Status]bool{}
	for _, p := range reg.Probes() {
		seen[p.ID()] = map[probes.Status]bool{}
	}
	for _, name := range scenarios.Names() {
		got, _ := judged(t, name)
		for _, f := range got {
			if seen[f.Probe] != nil {
				seen[f.Probe][f.Status] = true
			}
			for _, fix := range allFixes(f.Fix) {
				if _, ok := reg.Get(fix.Verify); !ok {
					t.Errorf("%s: fix %s on %s is verified by unknown probe %q", name, fix.ID, f.Probe, fix.Verify)
				}
				if fix.Kind != probes.Manual && len(fix.Commands) == 0 && len(fix.Choices) == 0 {
					t.Errorf("%s: fix %s shows no commands before running", name, fix.ID)
				}
				if fix.Kind == probes.NodeScript && !strings.HasPrefix(string(fix.Action), "fix-") {
					t.Errorf("%s: node fix %s names no fix script (%q)", name, fix.ID, fix.Action)
				}
			}
		}
	}
	var ids []string
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !seen[id][probes.Pass] {
			t.Errorf("probe %s passes in no scenario", id)
		}
		if !seen[id][probes.Fail] && !seen[id][probes.Warn] {
			t.Errorf("probe %s fails in no scenario", id)
		}
	}
}

func allFixes(f *probes.Fix) []*probes.Fix {
	if f == nil {
		return nil
	}
	out := []*probes.Fix{f}
	for _, c := range f.Choices {
		out = append(out, allFixes(c)...)
	}
	return out
}

// TestBadEvidenceFailsForward: a broken file gives one clear finding naming it, and other
// nodes and probes are still judged.
func TestBadEvidenceFailsForward(t *testing.T) {
	name := scenarios.Names()[0]
	fsys, meta, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	tree := evidence.NewTree()
	if err := tree.CopyFrom(fsys); err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	bad := evidence.NodeFile(node, evidence.FileHNSNetworks)
	tree.Put(bad, []byte("{\"Name\": \"l2br")) // truncated
	tree.PutAll("nodes/ghost", map[string][]byte{evidence.FileServices: []byte("[]")})
	got, err := engine.Analyze(context.Background(), probes.Default(), tree.Evidence(), append([]string{"ghost"}, meta.Nodes...))
	if err != nil {
		t.Fatal(err)
	}
	var hnsErr, ghostErr, otherNodeJudged bool
	for _, f := range got {
		if f.Node == node && f.Probe == "HNS-NETWORK" && f.Status == probes.Error && strings.Contains(f.Summary, bad) {
			hnsErr = true
		}
		// ghost is not in the scenario's complete node list: not registered (NODE-READY
		// fails) or an error, either naming it.
		if f.Node == "ghost" && (f.Status == probes.Error || f.Status == probes.Fail) && strings.Contains(f.Summary+strings.Join(f.Details, " "), "ghost") {
			ghostErr = true
		}
		if f.Node == node && f.Probe == "NODE-PODCIDR" && f.Status != probes.Error {
			otherNodeJudged = true
		}
	}
	if !hnsErr || !ghostErr || !otherNodeJudged {
		t.Fatalf("hns error %v, unknown node error %v, other probes judged %v:\n%s", hnsErr, ghostErr, otherNodeJudged, dump(got))
	}
}

func dump(fs []probes.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s %s\n", f.Node, f.Probe, f.Status, f.Summary)
	}
	return b.String()
}

// TestRunSharesEvidenceSafely: probes of many nodes judged at once share one tree's
// decoded evidence (the memo); none may change what it was given. Run with -race in CI.
func TestRunSharesEvidenceSafely(t *testing.T) {
	for _, name := range []string{"dns-hardcoded", "healthy-containerd-overlay"} {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		tree := evidence.NewTree()
		if err := tree.CopyFrom(fsys); err != nil {
			t.Fatal(err)
		}
		ev := tree.Evidence()
		want := dump(probes.Default().Run(meta.Nodes[0], ev))
		var wg sync.WaitGroup
		got := make([]string, 16)
		for i := range got {
			wg.Go(func() { got[i] = dump(probes.Default().Run(meta.Nodes[0], ev)) })
		}
		wg.Wait()
		for i, g := range got {
			if g != want {
				t.Fatalf("%s: run %d judged differently:\n%s\nwant:\n%s", name, i, g, want)
			}
		}
	}
}
