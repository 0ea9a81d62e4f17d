package agent_test

import (
	"context"
	"io/fs"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// counting counts the requests a client sends, by method.
type counting struct {
	next http.RoundTripper
	n    map[string]*atomic.Int64
}

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n[r.Method].Add(1)
	return c.next.RoundTrip(r)
}

func countingAgent(t testing.TB, cfg *rest.Config) (*agent.Agent, func() map[string]int64) {
	t.Helper()
	n := map[string]*atomic.Int64{}
	for _, m := range []string{"GET", "POST", "PATCH", "PUT", "DELETE"} {
		n[m] = new(atomic.Int64)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{next: rt, n: n} })
	base, err := fs.Sub(scenarios.FS(), scenarioName)
	if err != nil {
		t.Fatal(err)
	}
	a := &agent.Agent{Node: scenarioNode, Source: scenarioSource{base}, Registry: probes.Default(), Version: "test", Interval: time.Minute,
		Publisher: &agent.Publisher{Client: kubernetes.NewForConfigOrDie(cfg), Node: scenarioNode}}
	return a, func() map[string]int64 {
		out := map[string]int64{}
		for m, v := range n {
			if x := v.Swap(0); x > 0 {
				out[m] = x
			}
		}
		return out
	}
}

// TestSteadySweepCostsTwoRequests: after its first sweep, a sweep that changes nothing
// costs the API server two requests, the status patch and the report's apply; the
// first also reads the Node once and records one event per failing probe.
func TestSteadySweepCostsTwoRequests(t *testing.T) {
	c := kubeapi.Start(t)
	setupCluster(t, kubernetes.NewForConfigOrDie(c.Config), scenarioNode)
	a, count := countingAgent(t, c.Config)
	ctx := context.Background()
	if _, err := a.Step(ctx); err != nil {
		t.Fatal(err)
	}
	first := count()
	if first["GET"] != 1 || first["POST"] != 1 || first["PATCH"] != 2 {
		t.Errorf("first sweep: %v, want GET 1 (the node), POST 1 (the SVC-KUBELET event), PATCH 2 (status, report)", first)
	}
	for i := 0; i < 3; i++ {
		if _, err := a.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if got := count(); len(got) != 1 || got["PATCH"] != 2 {
			t.Errorf("sweep %d: %v, want PATCH 2 and nothing else", i+2, got)
		}
	}
}

// BenchmarkAgentStep is one agent sweep of a scenario node, judged and published to the
// real API server: the agent's CPU and memory per sweep, without the node's own
// snippets (PowerShell's time is the node's).
func BenchmarkAgentStep(b *testing.B) {
	c := kubeapi.Start(b)
	setupCluster(b, kubernetes.NewForConfigOrDie(c.Config), scenarioNode)
	a, count := countingAgent(b, c.Config)
	ctx := context.Background()
	if _, err := a.Step(ctx); err != nil {
		b.Fatal(err)
	}
	count()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := a.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var total int64
	for _, v := range count() {
		total += v
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/op")
}
