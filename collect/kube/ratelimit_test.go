package kube_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// TestNodeLogsOnlyAfterDiscovery: before Collect listed the cluster's nodes, and for a
// node the list does not hold, FillNodeLogs sends no request (a cluster that is not there
// cost every node the rate limiter's wait) and says why for each log.
func TestNodeLogsOnlyAfterDiscovery(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/api/v1/nodes" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"win-1"}}]}`))
			return
		}
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(cfg, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "+srv.URL+"}}]\n"+
		"users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, cfg)
	tree := evidence.NewTree()
	tree.Put("nodes/win-1/kubelet.log.err", []byte("exit 1\nno log\n"))
	tree.Put("nodes/win-2/kubelet.log.err", []byte("exit 1\nno log\n"))
	missed := client.FillNodeLogs(t.Context(), tree, "win-1", []string{"kubelet.log"}, kube.NodeLogOptions{})
	if n := requests.Load(); n != 0 || len(missed) != 1 || !strings.Contains(missed[0], "nodes were not listed") {
		t.Fatalf("before discovery: %d requests, missed %q", n, missed)
	}
	_, _ = client.Collect(t.Context(), evidence.NewTree()) // lists win-1; the later lists fail, which is no matter here
	before := requests.Load()
	missed = client.FillNodeLogs(t.Context(), tree, "win-2", []string{"kubelet.log"}, kube.NodeLogOptions{})
	if n := requests.Load() - before; n != 0 || len(missed) != 1 || !strings.Contains(missed[0], "no node win-2") {
		t.Fatalf("a node the cluster lacks: %d requests, missed %q", n, missed)
	}
	_ = client.FillNodeLogs(t.Context(), tree, "win-1", []string{"kubelet.log"}, kube.NodeLogOptions{})
	if requests.Load() == before {
		t.Fatal("a listed node's missing log was not asked for")
	}
}

// TestFleetRateLimit: unset, the limit grows with the nodes swept at once and never falls
// below kubectl's; what the user sets is kept.
func TestFleetRateLimit(t *testing.T) {
	d := kube.DefaultRateLimit()
	for _, c := range []struct {
		concurrency int
		qps         float32
		burst       int
		want        kube.RateLimit
	}{
		{1, 0, 0, d},
		{32, 0, 0, kube.RateLimit{QPS: 256, Burst: 512}},
		{64, 0, 0, kube.RateLimit{QPS: 512, Burst: 1024}},
		{32, 20, 0, kube.RateLimit{QPS: 20, Burst: 100}},
		{32, 20, 30, kube.RateLimit{QPS: 20, Burst: 30}},
		{32, -1, 0, kube.RateLimit{QPS: -1, Burst: 100}},
	} {
		if got := kube.FleetRateLimit(c.concurrency, c.qps, c.burst); got != c.want {
			t.Errorf("FleetRateLimit(%d, %v, %d) = %+v, want %+v", c.concurrency, c.qps, c.burst, got, c.want)
		}
	}
	for _, l := range []kube.RateLimit{{}, {QPS: 300, Burst: 600}} {
		c, err := kube.NewWithLimit(flags(writeKubeconfig(t), ""), l)
		if err != nil {
			t.Fatal(err)
		}
		want := l
		if l == (kube.RateLimit{}) {
			want = d
		}
		if got := (kube.RateLimit{QPS: c.RESTConfig().QPS, Burst: c.RESTConfig().Burst}); got != want {
			t.Errorf("NewWithLimit(%+v): the client's limit is %+v, want %+v", l, got, want)
		}
	}
}

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"+
		"users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
