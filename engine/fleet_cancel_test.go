package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestProbeCancelReportsEveryNode: cancelling a run while one node is being swept ends
// that sweep and reports every node that had not had its turn, instead of leaving it out.
func TestProbeCancelReportsEveryNode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialed := make(chan struct{}, 8)
	eng := &engine.Engine{Registry: probes.Default(), Concurrency: 1, Tree: evidence.NewTree(),
		Dial: func(ctx context.Context, _ transport.Config) (transport.Transport, error) {
			dialed <- struct{}{}
			<-ctx.Done() // a node that never answers
			return nil, ctx.Err()
		}}
	var targets []engine.Target
	for _, n := range []string{"win-1", "win-2", "win-3", "win-4"} {
		targets = append(targets, engine.Target{Name: n, Transport: transport.Config{Kind: transport.WinRM, Host: "192.0.2.1"}})
	}
	go func() { <-dialed; cancel() }()
	var mu sync.Mutex
	judged := map[string]bool{}
	findings := eng.Probe(ctx, targets, func(ev engine.Event) {
		if ev.Kind == engine.NodeJudged {
			mu.Lock()
			judged[ev.Node] = true
			mu.Unlock()
		}
	})
	notSwept := 0
	nodes := map[string]bool{}
	for _, f := range findings {
		nodes[f.Node] = true
		if f.Probe == probes.ReachID && strings.HasPrefix(f.Summary, "not swept") {
			notSwept++
		}
	}
	if len(nodes) != 4 || len(judged) != 4 {
		t.Fatalf("findings for %v, judged events for %v; want all 4 nodes", nodes, judged)
	}
	if notSwept != 3 {
		t.Fatalf("%d nodes reported not swept, want the 3 that never had their turn", notSwept)
	}
}
