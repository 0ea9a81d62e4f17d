package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestSnapshotCancelReportsEveryNode: a snapshot cancelled while its first node is
// collected still accounts for every node (progress and log), then fails rather than
// writing a bundle that silently lacks nodes.
func TestSnapshotCancelReportsEveryNode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialed := make(chan struct{}, 8)
	eng := &engine.Engine{Registry: probes.Default(), Concurrency: 1, Tree: evidence.NewTree(),
		Dial: func(ctx context.Context, _ transport.Config) (transport.Transport, error) {
			dialed <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	s := &engine.Session{Engine: eng}
	for _, n := range []string{"win-1", "win-2", "win-3"} {
		s.Targets = append(s.Targets, engine.Target{Name: n, Transport: transport.Config{Kind: transport.WinRM, Host: "192.0.2.1"}})
	}
	go func() { <-dialed; cancel() }()
	var log bytes.Buffer
	var mu sync.Mutex
	seen := map[string]bool{}
	path := filepath.Join(t.TempDir(), "snap.tar.gz")
	_, _, err := s.Snapshot(ctx, engine.SnapshotOptions{Path: path, Since: time.Hour, MaxLog: 1 << 20, Log: &log,
		OnNode: func(_, _ int, node string) { mu.Lock(); seen[node] = true; mu.Unlock() }})
	if err == nil {
		t.Fatal("a cancelled snapshot wrote its bundle")
	}
	if len(seen) != 3 || strings.Count(log.String(), "not collected: context canceled") != 2 {
		t.Fatalf("progress for %v; log:\n%s", seen, log.String())
	}
}
