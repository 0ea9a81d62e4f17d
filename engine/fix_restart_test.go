package engine_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestFixRestartingContainerdOverHostProcess: fix-sandbox-image restarts containerd,
// which through a HostProcess pod would cut the fix's own exec stream. The fix hands the
// restart to a process of its own and returns; the fake kubelet then restarts containerd
// as the real one goes: every open stream cut, execs refused for a while, containerd
// back as another process. The Fixer waits for that before re-probing, so the fix is
// verified by a re-probe made after containerd answered again, and no pod is left.
func TestFixRestartingContainerdOverHostProcess(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, meta, _, err := scenarios.Load("pause-containerd-wrong-tag")
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: node, Client: cs, TLS: tlsCfg, Responder: fake})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	run, err := hostprocess.NewRun(hostprocess.Options{Client: cs, Config: c.Config})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(_ context.Context, cfg transport.Config) (transport.Transport, error) { return run.Dial(cfg) }
	target := engine.Target{Name: node, Transport: transport.Config{Kind: transport.HostProcess, Node: node, Timeout: time.Minute}}
	eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys)}
	fx := &engine.Fixer{Engine: eng, Targets: map[string]engine.Target{node: target},
		Audit: &engine.Audit{Path: t.TempDir() + "/audit.jsonl"}, User: "tester"}
	var f probes.Finding
	for _, got := range eng.ProbeNode(context.Background(), target, func(engine.Event) {}) {
		if got.Probe == "IMG-PAUSE" {
			f = got
		}
	}
	fix := pick(f, "multiarch-pause")
	if fix == nil {
		t.Fatalf("IMG-PAUSE offers no multiarch-pause fix: %+v", f)
	}
	before := fake.ServiceProcess("containerd")
	out, err := fx.Apply(context.Background(), f, fix, engine.Typed(node))
	if err != nil || out.Result != engine.Verified {
		t.Fatalf("fix over hostprocess: %v, %s %s (output %q)", err, out.Result, out.After.Summary, out.Output)
	}
	if !strings.Contains(out.Output, "containerd (process ") {
		t.Errorf("the fix's output does not say containerd restarts on its own: %q", out.Output)
	}
	if after := fake.ServiceProcess("containerd"); after == before {
		t.Errorf("containerd still runs as process %d: the restart did not happen", before)
	}
	// The restart happened after the fix's exec, and the re-probe's exec after it was over.
	ev := k.Events()
	cut, up := slices.Index(ev, "cut containerd"), slices.Index(ev, "up containerd")
	if cut < 1 || up < cut || ev[len(ev)-1] != "exec" || slices.Index(ev[up:], "exec") < 0 {
		t.Fatalf("kubelet events %v: want execs, the restart cutting in, and the re-probe's exec after it", ev)
	}
	left, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("pods left after the fix: %d (%v)", len(left.Items), err)
	}
}
