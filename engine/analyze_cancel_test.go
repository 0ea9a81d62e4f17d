package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// cancelOnRead is evidence that cancels the run once the first node's files are read:
// Ctrl-C pressed while the analysis is under way.
type cancelOnRead struct {
	fs.FS
	cancel context.CancelFunc
	reads  atomic.Int64
}

func (c *cancelOnRead) Open(name string) (fs.File, error) {
	if strings.HasPrefix(name, "nodes/") && c.reads.Add(1) == 1 {
		c.cancel()
	}
	return c.FS.Open(name)
}

// TestAnalyzeStopsWhenCancelled: a bundle of many nodes cancelled mid-run returns the
// context's error and no findings (a partial judgement must not read as whole), without
// judging the nodes after the cancel.
func TestAnalyzeStopsWhenCancelled(t *testing.T) {
	src, meta, _, err := scenarios.Load("routes-missing")
	if err != nil {
		t.Fatal(err)
	}
	// 200 copies of the scenario's node.
	big := fstest.MapFS{}
	err = fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		rest, ok := strings.CutPrefix(p, "nodes/"+meta.Nodes[0]+"/")
		if !ok {
			big[p] = &fstest.MapFile{Data: b}
			return nil
		}
		for i := range 200 {
			big[fmt.Sprintf("nodes/win-%03d/%s", i, rest)] = &fstest.MapFile{Data: b}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ev := &cancelOnRead{FS: big, cancel: cancel}
	findings, err := Analyze(ctx, probes.Default(), evidence.Evidence{FS: ev}, nil)
	if !errors.Is(err, context.Canceled) || findings != nil {
		t.Fatalf("got %d findings, err %v; want none and context.Canceled", len(findings), err)
	}
	// The first node was under way when the cancel came; none after it was judged.
	perNode := len(probes.Default().Probes())
	if n := ev.reads.Load(); n > int64(4*perNode) {
		t.Errorf("%d node files read after the cancel: the analysis went on", n)
	}
	// Without a cancel the same evidence is judged whole.
	all, err := Analyze(t.Context(), probes.Default(), evidence.Evidence{FS: big}, nil)
	if err != nil || len(all) < 200 {
		t.Fatalf("uncancelled: %d findings, %v", len(all), err)
	}
}
