package engine_test

import (
	"context"
	"io"
	"io/fs"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestAnalyzeCostPerNodeIsFlat: judging a fleet of 1000 nodes costs each node what a
// fleet of 250 does, in what can be counted exactly on a loaded machine: heap
// allocations, bytes read from the evidence, and file system calls (a fleet-wide file
// decoded once per node, a listing of the whole tree per lookup, show as all three). It
// runs what `analyze DIR -o json` runs after opening the folder: the in-memory import of
// pastes, the probes, the links between findings, root causes and the JSON report.
//
// Time is not measured (a shared 2-core machine makes it noise); the benchmarks of
// command_bench_test.go report it.
func TestAnalyzeCostPerNodeIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 1250 synthetic nodes")
	}
	small, large := analyzeCost(t, 250), analyzeCost(t, 1000)
	for _, m := range []struct {
		what      string
		s, l      float64
		tolerance float64
	}{
		// Maps and slices that grow with the fleet (the index of nodes, the findings)
		// allocate a little more per node as they double; 25% is far below what one
		// per-node pass over fleet-wide data adds (4 times at these sizes).
		{"allocations", small.allocs, large.allocs, 1.25},
		{"evidence bytes read", small.bytes, large.bytes, 1.10},
		{"file system calls", small.calls, large.calls, 1.10},
	} {
		t.Logf("%s per node: %.0f at 250 nodes, %.0f at 1000", m.what, m.s, m.l)
		if m.l > m.s*m.tolerance {
			t.Errorf("%s per node grow with the fleet: %.0f at 250 nodes, %.0f at 1000 (more than %.0f%%)", m.what, m.s, m.l, (m.tolerance-1)*100)
		}
	}
}

type perNode struct{ allocs, bytes, calls float64 }

// analyzeCost judges a synthetic fleet of n nodes as analyze does and returns its cost
// per node.
func analyzeCost(t *testing.T, n int) perNode {
	t.Helper()
	files, err := synthFleet(n)
	if err != nil {
		t.Fatal(err)
	}
	// The in-memory Tree, not fstest.MapFS: a MapFS lists its whole map for every missing
	// file, which is the growth this test looks for.
	tr := evidence.NewTree()
	for p, b := range files {
		tr.Put(p, b)
	}
	cfs := &countingFS{fsys: tr.Evidence().FS}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fsys, _, err := importer.Overlay(cfs)
	if err != nil {
		t.Fatal(err)
	}
	ev := evidence.Evidence{FS: fsys}
	findings, err := engine.Analyze(context.Background(), probes.Default(), ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = report.RootCauses(findings)
	if err := report.Write(io.Discard, report.JSON, report.Meta{Tool: "wintroubleshoot"}, findings, report.Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(findings) < n*10 {
		t.Fatalf("%d findings for %d nodes: the fleet was not judged", len(findings), n)
	}
	nodes := float64(n)
	return perNode{allocs: float64(after.Mallocs-before.Mallocs) / nodes,
		bytes: float64(cfs.bytes.Load()) / nodes, calls: float64(cfs.calls.Load()) / nodes}
}

// countingFS counts the calls made on an evidence FS and the bytes it hands out.
type countingFS struct {
	fsys         fs.FS
	calls, bytes atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.calls.Add(1)
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, c: c}, nil
}

func (c *countingFS) ReadFile(name string) ([]byte, error) {
	c.calls.Add(1)
	b, err := fs.ReadFile(c.fsys, name)
	c.bytes.Add(int64(len(b)))
	return b, err
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) {
	c.calls.Add(1)
	return fs.Stat(c.fsys, name)
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.calls.Add(1)
	es, err := fs.ReadDir(c.fsys, name)
	c.calls.Add(int64(len(es)))
	return es, err
}

type countingFile struct {
	fs.File
	c *countingFS
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.c.bytes.Add(int64(n))
	return n, err
}
