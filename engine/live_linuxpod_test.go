package engine_test

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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

// podWorld is a real apiserver whose nodes are fake kubelets: Windows nodes reached
// through HostProcess pods, Linux workers through privileged pods.
type podWorld struct {
	c   *kubeapi.Cluster
	cs  *kubernetes.Clientset
	run *hostprocess.Run
}

func newPodWorld(t *testing.T) *podWorld {
	c := kubeapi.Start(t)
	return &podWorld{c: c, cs: kubernetes.NewForConfigOrDie(c.Config)}
}

// targets starts a kubelet per node of a scenario, each answering from its fake node
// (faults apply to the Linux ones), and returns the targets over pods, the Linux fakes,
// and a new run for them.
func (w *podWorld) targets(t *testing.T, scenario string, faults *fakenode.Faults) ([]engine.Target, map[string]*fakenode.LinuxNode) {
	t.Helper()
	fsys, meta, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := w.c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if w.run, err = hostprocess.NewRun(hostprocess.Options{Client: w.cs, Config: w.c.Config, StartTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var targets []engine.Target
	fakes := map[string]*fakenode.LinuxNode{}
	for _, node := range meta.Nodes {
		opts := fakenode.KubeletOptions{Name: node, Client: w.cs, TLS: tlsCfg}
		target := engine.Target{Name: node, Transport: transport.Config{Kind: transport.HostProcess, Node: node, Timeout: time.Minute}}
		if fakenode.IsLinuxNode(fsys, node) {
			fakes[node] = fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fsys, Node: node, Faults: faults})
			opts.Responder, opts.OS, target.OS = fakes[node], "linux", evidence.Linux
		} else {
			opts.Responder = fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node})
		}
		k, err := fakenode.StartKubelet(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
		targets = append(targets, target)
	}
	return targets, fakes
}

func (w *podWorld) engine(t *testing.T, scenario string) *engine.Engine {
	fsys, _, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	dial := func(_ context.Context, cfg transport.Config) (transport.Transport, error) { return w.run.Dial(cfg) }
	return &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: clusterTree(t, fsys), Timeout: time.Minute}
}

func (w *podWorld) assertNoPods(t *testing.T, when string) {
	t.Helper()
	left, err := w.cs.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("pods left %s: %d (%v)", when, len(left.Items), err)
	}
}

// TestLiveEqualsAnalyzeLinuxPod: in every scenario with Linux workers, reached through the
// cluster alone (Windows nodes in HostProcess pods, Linux workers in privileged pods, the
// shell sweep behind nsenter), a live run gives exactly the findings `analyze` gives;
// each Linux worker's shell got the one sweep, and no pod is left.
func TestLiveEqualsAnalyzeLinuxPod(t *testing.T) {
	w := newPodWorld(t)
	for name := range mixedScenarios(t) {
		t.Run(name, func(t *testing.T) {
			fsys, meta, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: fsys}, meta.Nodes)
			if err != nil {
				t.Fatal(err)
			}
			targets, fakes := w.targets(t, name, nil)
			got := w.engine(t, name).Probe(context.Background(), targets, nil)
			if !reflect.DeepEqual(brief(got), brief(want)) {
				t.Fatalf("live over pods differs from analyze:\nlive:\n  %s\nanalyze:\n  %s",
					strings.Join(brief(got), "\n  "), strings.Join(brief(want), "\n  "))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("findings agree in summary but differ in details or fixes:\nlive:    %+v\nanalyze: %+v", got[i], want[i])
				}
			}
			for node, fake := range fakes {
				cmds := fake.Commands()
				if len(cmds) != 1 || cmds[0].CommandLine != "sh -s" || len(cmds[0].Calls) == 0 {
					t.Errorf("%s received %d commands, want one shell sweep: %+v", node, len(cmds), cmds)
				}
			}
			w.assertNoPods(t, "after the sweep")
		})
	}
}

// TestLinuxRouteFixOverPod: the Linux worker's missing route is fixed through its
// privileged pod (sh behind nsenter, never PowerShell) and verified; no pod is left.
func TestLinuxRouteFixOverPod(t *testing.T) {
	const name, node = "mixed-hardway-route-missing", "node-1"
	w := newPodWorld(t)
	targets, fakes := w.targets(t, name, nil)
	eng := w.engine(t, name)
	byName := map[string]engine.Target{}
	for _, tg := range targets {
		byName[tg.Name] = tg
	}
	fx := &engine.Fixer{Engine: eng, Targets: byName, Audit: &engine.Audit{Path: t.TempDir() + "/audit.jsonl"}, User: "tester"}
	var f probes.Finding
	for _, x := range eng.Probe(context.Background(), targets, nil) {
		if x.Node == node && x.Probe == "LINUX-ROUTES" {
			f = x
		}
	}
	if f.Fix == nil || f.Fix.Action != probes.FixLinuxAddRoutes {
		t.Fatalf("%s LINUX-ROUTES: %+v, want a failure offering %s", node, f, probes.FixLinuxAddRoutes)
	}
	out, err := fx.Apply(context.Background(), f, f.Fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified {
		t.Fatalf("fix over the privileged pod: %v, %s %s", err, out.Result, out.After.Summary)
	}
	if a := fakes[node].Applied(); len(a) != 1 || a[0] != string(probes.FixLinuxAddRoutes) {
		t.Errorf("applied %v", a)
	}
	for _, c := range fakes[node].Commands() {
		if c.CommandLine != "sh -s" {
			t.Errorf("the node's shell was given %q", c.CommandLine)
		}
	}
	w.assertNoPods(t, "after the fix")
}

// TestLinuxPodCancelLeavesNoPod: a live run cancelled while the Linux workers' sweeps
// hang (Ctrl-C) deletes every pod it made.
func TestLinuxPodCancelLeavesNoPod(t *testing.T) {
	const name = "mixed-hardway-route-missing"
	w := newPodWorld(t)
	faults := &fakenode.Faults{}
	faults.Set(fakenode.FaultSet{HangSnippets: []string{"linux-ip-route.json"}})
	targets, _ := w.targets(t, name, faults)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once a Linux worker's pod runs: its sweep then hangs on the routes.
	go func() {
		defer cancel()
		sel := metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue}
		wi, err := w.cs.CoreV1().Pods("").Watch(ctx, sel)
		if err != nil {
			t.Error(err)
			return
		}
		defer wi.Stop()
		for ev := range wi.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if ok && p.Spec.NodeSelector["kubernetes.io/os"] == "linux" && p.Status.Phase == corev1.PodRunning {
				return
			}
		}
	}()
	got := w.engine(t, name).Probe(ctx, targets, nil)
	if ctx.Err() == nil {
		t.Fatalf("the run ended before it was cancelled: %d findings", len(got))
	}
	w.assertNoPods(t, "after a cancelled run")
}
