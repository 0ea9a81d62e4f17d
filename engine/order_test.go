package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestOneFindingOrder: the engine hands out findings in the order the report and the
// screen show them (report.Sort over probes.Compare), for every scenario, so a JSON
// consumer, the Markdown ticket and the TUI list one node's findings alike.
func TestOneFindingOrder(t *testing.T) {
	refs := func(fs []probes.Finding) []probes.Ref {
		out := make([]probes.Ref, len(fs))
		for i, f := range fs {
			out[i] = f.Ref()
		}
		return out
	}
	for _, name := range scenarios.Names() {
		fsys, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := refs(fs), refs(report.Sort(fs)); !slices.Equal(got, want) {
			t.Errorf("%s: the engine's order\n%v\nis not the report's\n%v", name, got, want)
		}
	}
	// REACH leads its node among findings of the same status: it explains the rest.
	fs := []probes.Finding{{Probe: "NODE-READY", Node: "w", Status: probes.Error}, {Probe: probes.ReachID, Node: "w", Status: probes.Error}}
	Sort(fs)
	if fs[0].Probe != probes.ReachID {
		t.Errorf("REACH is not first: %v", refs(fs))
	}
}
