package probes_test

import (
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestLayoutsDeclared: a probe's Spec.Layouts are exactly the layouts whose healthy
// scenarios it judges (does not skip), so `wintroubleshoot probes` tells the truth. A probe
// that declares none is shown as undeclared.
func TestLayoutsDeclared(t *testing.T) {
	judged := map[string][]string{}
	for _, name := range scenarios.Names() {
		tree, meta, want, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if !scenarios.Healthy(meta, want) {
			continue // a broken scenario; the matrix's healthy column is what a layout is known by
		}
		layout := meta.Layout
		if layout == "" {
			layout = meta.Cluster
		}
		for _, p := range probes.Default().Probes() {
			for _, node := range meta.Nodes {
				f := probes.RunProbe(p, node, evidence.Evidence{FS: tree})[0]
				if f.Status != probes.Skip && !slices.Contains(judged[p.ID()], layout) {
					judged[p.ID()] = append(judged[p.ID()], layout)
				}
			}
		}
	}
	for _, p := range probes.Default().Probes() {
		if len(p.Spec().Layouts) == 0 {
			continue // not declared: `wintroubleshoot probes` says so
		}
		want := slices.Sorted(slices.Values(judged[p.ID()]))
		got := slices.Sorted(slices.Values(p.Spec().Layouts))
		if !slices.Equal(got, want) {
			t.Errorf("%s declares layouts %q; its healthy scenarios say %q", p.ID(), got, want)
		}
	}
}
