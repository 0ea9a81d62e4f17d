package engine_test

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestLiveEqualsAnalyzeHostProcess: through a HostProcess pod (real apiserver, pods/exec,
// a fake kubelet speaking the real streaming protocol) a live sweep gives exactly the
// findings `analyze` gives over the same scenario, as over WinRM and SSH. One cluster
// serves every scenario; each scenario's nodes get kubelets of their own, which take the
// Node objects over from the previous scenario's.
func TestLiveEqualsAnalyzeHostProcess(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range scenarios.Names() {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			run, err := hostprocess.NewRun(hostprocess.Options{Client: cs, Config: c.Config, StartTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			var targets []engine.Target
			for _, node := range meta.Nodes {
				if fakenode.IsLinuxNode(fsys, node) {
					// A Linux worker is reached over SSH (no Linux pod transport), as
					// --transport auto does: a mixed scenario is judged whole.
					lin := fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
					targets = append(targets, engine.Target{Name: node, Transport: serveLinux(t, lin), OS: evidence.Linux})
					continue
				}
				fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
				k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: node, Client: cs, TLS: tlsCfg, Responder: fake})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { k.Close() })
				targets = append(targets, engine.Target{Name: node,
					Transport: transport.Config{Kind: transport.HostProcess, Node: node, Timeout: time.Minute}})
			}
			dial := func(ctx context.Context, cfg transport.Config) (transport.Transport, error) {
				if cfg.Kind != transport.HostProcess {
					return dial(ctx, cfg)
				}
				return run.Dial(cfg)
			}
			eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys), Timeout: time.Minute}
			got := eng.Probe(context.Background(), targets, nil)
			if !reflect.DeepEqual(brief(got), brief(want)) {
				t.Fatalf("live over hostprocess differs from analyze:\nlive:\n  %s\nanalyze:\n  %s",
					strings.Join(brief(got), "\n  "), strings.Join(brief(want), "\n  "))
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("findings agree in summary but differ in details or fixes")
			}
			left, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
			if err != nil || len(left.Items) != 0 {
				t.Fatalf("pods left after the sweep: %d (%v)", len(left.Items), err)
			}
		})
	}
}

// TestFixOverHostProcess: a node fix runs through a HostProcess pod as over WinRM: the
// node runs exactly the fix, the re-sweep verifies it, and no pod is left.
func TestFixOverHostProcess(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, meta, _, err := scenarios.Load("routes-missing")
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
		if got.Probe == "NET-ROUTES" {
			f = got
		}
	}
	fix := pick(f, "add-routes")
	if fix == nil {
		t.Fatalf("NET-ROUTES offers no add-routes fix: %+v", f)
	}
	out, err := fx.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified {
		t.Fatalf("fix over hostprocess: %v, %s %s", err, out.Result, out.After.Summary)
	}
	if applied := fake.Applied(); len(applied) != 1 {
		t.Fatalf("the node applied %v, want the one fix", applied)
	}
	left, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("pods left after the fix: %d (%v)", len(left.Items), err)
	}
}
