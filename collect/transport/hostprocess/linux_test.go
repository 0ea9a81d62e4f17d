package hostprocess_test

import (
	"context"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// linuxScenario has Linux workers node-0..node-2 (their os.json says linux).
const linuxScenario = "mixed-hardway-bridge-subnet"

// linuxKubelet starts a fake Linux kubelet for one Linux node of a scenario.
func (w *world) linuxKubelet(t *testing.T, scenario, node string, opts fakenode.NodeOptions) *fakenode.LinuxNode {
	t.Helper()
	fsys, _, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	opts.Scenario, opts.Node = fsys, node
	fake := fakenode.NewLinuxNode(opts)
	tlsCfg, err := w.c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: node, Client: w.cs, TLS: tlsCfg,
		Responder: fake, OS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return fake
}

// directLinux is the fake Linux node answering in-process, as SSH carries it.
type directLinux struct{ n *fakenode.LinuxNode }

func (d directLinux) Run(ctx context.Context, c transport.Command) (transport.Output, error) {
	r := d.n.Respond(ctx, c.CommandLine, c.Stdin)
	return transport.Output{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode}, nil
}
func (directLinux) Close() error { return nil }

// TestSweepOverLinuxPod: the shell sweep through the privileged pod gives exactly the
// files the Linux node gives directly; the pod is kubectl-node-shell's, the exec is the
// nsenter line, and Close removes the pod.
func TestSweepOverLinuxPod(t *testing.T) {
	w := newWorld(t)
	w.linuxKubelet(t, linuxScenario, "node-0", fakenode.NodeOptions{})
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "node-0")
	reg := probes.Default()
	req := sweep.Request{Names: reg.NodeNeedsOf(evidence.Linux, reg.Probes()), OS: evidence.Linux}
	got, err := sweep.Run(t.Context(), tr, req)
	if err != nil {
		t.Fatalf("sweep over the privileged pod: %v", err)
	}
	if !tr.Linux() {
		t.Error("the transport did not take the Linux pod for the shell sweep")
	}
	fsys, _, _, err := scenarios.Load(linuxScenario)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sweep.Run(t.Context(), directLinux{fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fsys, Node: "node-0"})}, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) < 2 {
		t.Fatalf("sweep over the privileged pod differs from the node's own answer: %d files vs %d\n%q\n%q", len(got), len(want), got, want)
	}
	pods := w.ourPods(t)
	if len(pods) != 1 {
		t.Fatalf("want the one sweep pod while the transport is open, got %d", len(pods))
	}
	p := pods[0]
	c := p.Spec.Containers[0]
	switch {
	case p.Spec.NodeName != "node-0", !p.Spec.HostNetwork, !p.Spec.HostPID,
		p.Spec.NodeSelector["kubernetes.io/os"] != "linux", p.Spec.SecurityContext != nil && p.Spec.SecurityContext.WindowsOptions != nil,
		len(p.Spec.Tolerations) != 1 || p.Spec.Tolerations[0].Operator != "Exists",
		c.SecurityContext == nil || c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged,
		c.Image != hostprocess.DefaultLinuxImage, !slices.Equal(c.Command, []string{"sleep", "3600"}),
		p.Labels[hostprocess.RunLabel] != r.ID():
		t.Errorf("pod spec is not the privileged Linux pod: %+v", p.Spec)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}

// TestLinuxPodRefusesPowerShell: a Windows sweep sent to a Linux node through the pod
// fails as the host's sh fails it, and the sweep's hint names the Linux node.
func TestLinuxPodRefusesPowerShell(t *testing.T) {
	w := newWorld(t)
	w.linuxKubelet(t, linuxScenario, "node-0", fakenode.NodeOptions{})
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "node-0")
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "sh -s", Stdin: []byte("exit 0\n")}); err != nil {
		t.Fatalf("starting the Linux pod: %v", err)
	}
	_, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json"}})
	if err == nil || !strings.Contains(err.Error(), "powershell.exe: not found") || !strings.Contains(err.Error(), "Linux node") {
		t.Errorf("a PowerShell sweep in the Linux pod: %v; want the shell's not found and the Linux hint", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}

// TestLinuxPodCancelLeavesNoPod: a Linux sweep cancelled mid-way deletes its pod.
func TestLinuxPodCancelLeavesNoPod(t *testing.T) {
	w := newWorld(t)
	faults := &fakenode.Faults{}
	faults.Set(fakenode.FaultSet{HangSnippets: []string{"linux-sysctl.txt"}})
	w.linuxKubelet(t, linuxScenario, "node-0", fakenode.NodeOptions{Faults: faults})
	r := w.run(t, hostprocess.Options{})
	tr := dial(t, r, "node-0")
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		defer cancel()
		w.waitPodRunning(t, ctx)
	}()
	_, err := sweep.Run(ctx, tr, sweep.Request{Names: []string{"linux-sysctl.txt"}, OS: evidence.Linux})
	if err == nil {
		t.Fatal("a cancelled sweep reported no error")
	}
	w.assertNoPods(t)
}

// TestLinuxPodPodSecurity: a namespace enforcing baseline refuses the privileged pod; the
// error says so and what to label, and nothing is left.
func TestLinuxPodPodSecurity(t *testing.T) {
	w := newWorld(t)
	w.linuxKubelet(t, linuxScenario, "node-0", fakenode.NodeOptions{})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "baseline",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	if _, err := w.cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := dial(t, w.run(t, hostprocess.Options{Namespace: "baseline"}), "node-0")
	_, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"linux-sysctl.txt"}, OS: evidence.Linux})
	if err == nil {
		t.Fatal("a privileged pod was admitted under baseline")
	}
	wantIn(t, err, "create the privileged pod", "violates PodSecurity", "privileged", "pod-security.kubernetes.io/enforce=privileged")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}

// TestDocsRBACIsEnoughLinux: docs/rbac.yaml's hostprocess Role alone also sweeps a Linux
// worker through its privileged pod (no node read: the pod's kind follows the command).
func TestDocsRBACIsEnoughLinux(t *testing.T) {
	w := newWorld(t)
	w.linuxKubelet(t, linuxScenario, "node-0", fakenode.NodeOptions{})
	role := hostprocessRole(t)
	if _, err := w.cs.RbacV1().Roles(role.Namespace).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: role.Namespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "sre"}}}
	if _, err := w.cs.RbacV1().RoleBindings(role.Namespace).Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, w.cs, "sre", role.Namespace, "exec")
	cfg, err := w.c.UserConfig("sre")
	if err != nil {
		t.Fatal(err)
	}
	r := w.run(t, hostprocess.Options{Client: kubernetes.NewForConfigOrDie(cfg), Config: cfg, Namespace: role.Namespace})
	tr := dial(t, r, "node-0")
	if _, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"linux-sysctl.txt"}, OS: evidence.Linux}); err != nil {
		t.Fatalf("Linux sweep with docs/rbac.yaml's Role: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	w.assertNoPods(t)
}
