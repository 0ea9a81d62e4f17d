package engine_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestFaultsFailForward: every fault gives a clear per-node error naming the node, the
// transport and the cause, within the timeout, and the healthy node is still judged.
func TestFaultsFailForward(t *testing.T) {
	// A named scenario, not the first in sort order: where the dropped-connection cut falls
	// depends on the node's files, and a new scenario sorting first moved it.
	const name = "cni-plugin-missing"
	fsys, meta, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	type fault struct {
		name  string
		kind  transport.Kind
		set   fakenode.FaultSet
		fake  fakenode.NodeOptions
		cfg   func(*transport.Config)
		cause string // what the error must say
		// partial: frames that arrived before the fault are evidence; the snippets that
		// did not arrive carry the cause in their .err instead of the node being lost.
		partial bool
	}
	faults := []fault{
		{name: "refused", kind: transport.WinRM, set: fakenode.FaultSet{Refuse: true}, cause: ""},
		{name: "wrong-password", kind: transport.WinRMHTTPS, cfg: func(c *transport.Config) { c.Password = "wrong" }, cause: ""},
		{name: "ssh-wrong-password", kind: transport.SSH, cfg: func(c *transport.Config) { c.Password = "wrong" }, cause: ""},
		{name: "drop", kind: transport.WinRM, set: fakenode.FaultSet{DropMidReply: true}, cause: ""},
		{name: "ssh-drop", kind: transport.SSH, set: fakenode.FaultSet{DropMidReply: true}, cause: "connection dropped", partial: true},
		{name: "slow", kind: transport.WinRMHTTPS, set: fakenode.FaultSet{Hang: true}, cause: ""},
		{name: "ssh-slow", kind: transport.SSH, set: fakenode.FaultSet{Hang: true}, cause: ""},
		{name: "garbage", kind: transport.SSH, fake: fakenode.NodeOptions{Garbage: true}, cause: "not a sweep reply"},
	}
	var targets []engine.Target
	tree := clusterTree(t, fsys)
	for _, f := range faults {
		opts := f.fake
		opts.Scenario, opts.Node = fsys, node
		fs := &fakenode.Faults{}
		fs.Set(f.set)
		cfg := serve(t, f.kind, fakenode.NewNode(opts), fs)
		if f.cfg != nil {
			f.cfg(&cfg)
		}
		targets = append(targets, engine.Target{Name: f.name, Transport: cfg})
	}
	old := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node, CmdletMissing: []string{"hns-networks.json"}})
	targets = append(targets, engine.Target{Name: node, Transport: serve(t, transport.WinRMHTTPS, old, nil)})

	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: tree, Timeout: 3 * time.Second, Concurrency: 4}
	start := time.Now()
	got := eng.Probe(context.Background(), targets, nil)
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("faults took %s: timeouts are not honoured", el)
	}
	byNode := map[string][]probes.Finding{}
	for _, f := range got {
		byNode[f.Node] = append(byNode[f.Node], f)
	}
	for _, f := range faults {
		fs := byNode[f.name]
		if f.partial {
			checkPartial(t, f.name, f.cause, fs)
			continue
		}
		if len(fs) == 0 || fs[0].Probe != probes.ReachID || fs[0].Status != probes.Error {
			t.Errorf("%s: want a REACH error first, got %v", f.name, brief(fs))
			continue
		}
		text := fs[0].Summary + " " + strings.Join(fs[0].Details, " ")
		for _, must := range []string{f.name, string(f.kind), f.cause} {
			if !strings.Contains(text, must) {
				t.Errorf("%s: error %q does not say %q", f.name, text, must)
			}
		}
		if strings.Contains(text, testPassword) || strings.Contains(text, "wrong") && strings.Contains(f.name, "password") && strings.Contains(text, "Password") {
			t.Errorf("%s: the error shows a password: %q", f.name, text)
		}
	}
	// The old-build node: one snippet failed, the rest judged.
	var hns, judged bool
	for _, f := range byNode[node] {
		if f.Probe == "HNS-NETWORK" && f.Status == probes.Error && strings.Contains(strings.Join(f.Details, " "), "not recognized") {
			hns = true
		}
		if f.Probe == "SVC-KUBELET" && f.Status != probes.Error {
			judged = true
		}
	}
	if !hns || !judged {
		t.Errorf("old build: HNS error %v, other probes judged %v: %v", hns, judged, brief(byNode[node]))
	}
}

// TestCancelStopsSweeps: cancelling the context ends hung sweeps at once.
func TestCancelStopsSweeps(t *testing.T) {
	fsys, meta, _, err := scenarios.Load(scenarios.Names()[0])
	if err != nil {
		t.Fatal(err)
	}
	var targets []engine.Target
	for i, kind := range []transport.Kind{transport.WinRM, transport.SSH} {
		fs := &fakenode.Faults{}
		fs.Set(fakenode.FaultSet{Hang: true})
		cfg := serve(t, kind, fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]}), fs)
		targets = append(targets, engine.Target{Name: []string{"a", "b"}[i], Transport: cfg})
	}
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	eng.Probe(ctx, targets, nil)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("cancel took %s to stop the sweeps", el)
	}
}

// BenchmarkSweep200 sweeps 200 fake nodes with 20 ms latency per request, against one
// node's sweep time; it reports requests per node sweep and peak heap. The 0 ms variant
// shows the CPU the sweep itself costs here (client, fake servers and judging sharing
// this machine's cores), which latency hiding cannot remove.
func BenchmarkSweep200(b *testing.B) {
	for _, lat := range []time.Duration{20 * time.Millisecond, 0} {
		b.Run("latency="+lat.String(), func(b *testing.B) { benchSweep200(b, lat) })
	}
}

func benchSweep200(b *testing.B, latency time.Duration) {
	fsys, meta, _, err := scenarios.Load(scenarios.Names()[0])
	if err != nil {
		b.Fatal(err)
	}
	var targets []engine.Target
	var servers []*fakenode.WinRMServer
	for i := range 200 {
		fs := &fakenode.Faults{}
		fs.Set(fakenode.FaultSet{Latency: latency})
		srv, err := fakenode.StartWinRM(context.Background(), fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]}),
			fakenode.WinRMOptions{User: testUser, Password: testPassword, AllowUnencrypted: true, Basic: true, Faults: fs})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		servers = append(servers, srv)
		targets = append(targets, engine.Target{Name: "n" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
			Transport: transport.Config{Kind: transport.WinRM, Host: "127.0.0.1", Port: portOf(srv.Addr()), User: testUser, Password: testPassword, Auth: "basic", AllowBasicOverHTTP: true}})
	}
	one := func() time.Duration {
		eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(b, fsys)}
		s := time.Now()
		eng.Probe(context.Background(), targets[:1], nil)
		return time.Since(s)
	}
	single := one()
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	b.ResetTimer()
	var total time.Duration
	for range b.N {
		eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(b, fsys), Concurrency: 200}
		s := time.Now()
		eng.Probe(context.Background(), targets, nil)
		total += time.Since(s)
	}
	b.StopTimer()
	close(stop)
	var reqs int64
	for _, s := range servers {
		reqs += s.Requests()
	}
	sweeps := int64(b.N)*200 + 1
	b.ReportMetric(float64(reqs)/float64(sweeps), "requests/node-sweep")
	b.ReportMetric(float64(total)/float64(b.N)/float64(single), "x-one-node")
	b.ReportMetric(float64(single.Milliseconds()), "ms-one-node")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak-heap")
}

// TestFleetJudgesConcurrently: many nodes swept at once on one tree (sharing decoded
// cluster evidence) are each judged as one node alone would be.
func TestFleetJudgesConcurrently(t *testing.T) {
	fsys, meta, _, err := scenarios.Load("dns-hardcoded")
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys), Concurrency: 30}
	var targets []engine.Target
	for range 30 {
		fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]})
		targets = append(targets, engine.Target{Name: meta.Nodes[0], Transport: serve(t, transport.WinRM, fake, nil)})
	}
	want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	got := eng.Probe(context.Background(), targets, nil)
	if len(got) != 30*len(want) {
		t.Fatalf("%d findings, want %d", len(got), 30*len(want))
	}
	counts := map[string]int{}
	for _, f := range got {
		counts[f.Probe+" "+f.Status.String()]++
	}
	for _, f := range want {
		if counts[f.Probe+" "+f.Status.String()] != 30 {
			t.Errorf("%s %s judged %d times of 30", f.Probe, f.Status, counts[f.Probe+" "+f.Status.String()])
		}
	}
}

// checkPartial: a sweep cut short keeps what arrived. No REACH finding; at least one node
// probe judged from a frame that arrived, and every file that did not arrive says why.
func checkPartial(t *testing.T, node, cause string, fs []probes.Finding) {
	t.Helper()
	var judged, explained bool
	for _, f := range fs {
		if f.Probe == probes.ReachID {
			t.Errorf("%s: a partial sweep must not lose the node: %v", node, brief(fs))
			return
		}
		text := f.Summary + " " + strings.Join(f.Details, " ")
		if f.Status == probes.Error && strings.Contains(text, "could not collect") {
			if !strings.Contains(text, cause) {
				t.Errorf("%s: %s: error %q does not say %q", node, f.Probe, text, cause)
			}
			explained = true
		}
		if f.Probe == "SVC-KUBELET" && f.Status != probes.Error {
			judged = true
		}
	}
	if !judged || !explained {
		t.Errorf("%s: want frames that arrived judged (%v) and the rest explained (%v): %v", node, judged, explained, brief(fs))
	}
}
