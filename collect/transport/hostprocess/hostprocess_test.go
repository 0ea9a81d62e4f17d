package hostprocess_test

import (
	"context"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// direct is the fake node answering in-process: what WinRM and SSH carry byte for byte.
type direct struct{ n *fakenode.Node }

func (d direct) Run(ctx context.Context, c transport.Command) (transport.Output, error) {
	r := d.n.Respond(ctx, c.CommandLine, c.Stdin)
	return transport.Output{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode}, nil
}
func (direct) Close() error { return nil }

func nodeNames() []string { r := probes.Default(); return r.NodeNeeds(r.Probes()) }

// TestSweepOverHostProcess: the sweep through a HostProcess pod (real apiserver, pods/exec,
// the kubelet's real streaming server) gives exactly the files the node gives directly;
// the pod is what the HostProcess docs ask for, and Close removes it.
func TestSweepOverHostProcess(t *testing.T) {
	w := newWorld(t)
	k, fake := w.kubelet(t, "healthy-containerd-overlay", "win-1", nil)
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "win-1")
	got, err := sweep.Run(t.Context(), tr, sweep.Request{Names: nodeNames()})
	if err != nil {
		t.Fatalf("sweep over hostprocess: %v", err)
	}
	want, err := sweep.Run(t.Context(), direct{fake}, sweep.Request{Names: nodeNames()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sweep over hostprocess differs from the node's own answer: %d files vs %d", len(got), len(want))
	}
	t.Logf("the apiserver reached the kubelet with Upgrade: %q", k.Upgrades())
	pods := w.ourPods(t)
	if len(pods) != 1 {
		t.Fatalf("want the one sweep pod while the transport is open, got %d", len(pods))
	}
	p := pods[0]
	sc := p.Spec.SecurityContext.WindowsOptions
	switch {
	case p.Spec.NodeName != "win-1", !p.Spec.HostNetwork, sc == nil || sc.HostProcess == nil || !*sc.HostProcess,
		*sc.RunAsUserName != `NT AUTHORITY\SYSTEM`, p.Spec.NodeSelector["kubernetes.io/os"] != "windows",
		len(p.Spec.Tolerations) != 1 || p.Spec.Tolerations[0].Operator != "Exists",
		p.Labels[hostprocess.RunLabel] != r.ID(), p.Spec.Containers[0].Image != hostprocess.DefaultImage:
		t.Errorf("pod spec is not the documented HostProcess pod: %+v", p.Spec)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}

// TestCancelLeavesNoPod: a run cancelled mid-sweep (Ctrl-C) deletes its pod before Run
// returns, without Close.
func TestCancelLeavesNoPod(t *testing.T) {
	w := newWorld(t)
	faults := &fakenode.Faults{}
	faults.Set(fakenode.FaultSet{HangSnippets: []string{"host.json"}})
	w.kubeletNode(t, "healthy-containerd-overlay", "win-1", fakenode.NodeOptions{Faults: faults}, nil)
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "win-1")
	ctx, cancel := context.WithCancel(t.Context())
	// Cancel once the pod runs: the exec is then under way and hangs on host.json.
	go func() {
		defer cancel()
		w.waitPodRunning(t, ctx)
	}()
	_, err := sweep.Run(ctx, tr, sweep.Request{Names: []string{"host.json"}})
	if err == nil {
		t.Fatal("a cancelled sweep reported no error")
	}
	w.assertNoPods(t)
}

// TestLeftoverRemoved: a pod a killed run left (expired) is removed by the next run's
// first pod, with a warning; a pod of a run still going on is kept.
func TestLeftoverRemoved(t *testing.T) {
	w := newWorld(t)
	w.kubelet(t, "healthy-containerd-overlay", "win-1", nil)
	old := w.leftover(t, "deadrun", "2020-01-01T00:00:00Z")
	live := w.leftover(t, "liverun", "2999-01-01T00:00:00Z")
	var warned []string
	r := w.run(t, hostprocess.Options{Warn: func(s string) { warned = append(warned, s) }})
	tr := dial(t, r, "win-1")
	if _, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json"}}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.cs.CoreV1().Pods("default").Get(t.Context(), old, metav1.GetOptions{}); err == nil {
		t.Errorf("the killed run's pod %s is still there", old)
	}
	if _, err := w.cs.CoreV1().Pods("default").Get(t.Context(), live, metav1.GetOptions{}); err != nil {
		t.Errorf("the running run's pod %s was removed: %v", live, err)
	}
	if len(warned) != 1 {
		t.Errorf("want one warning naming the removed pod, got %q", warned)
	}
}
