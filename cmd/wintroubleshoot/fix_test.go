package main

import (
	"strings"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// fakeFixNode serves one scenario node over WinRM HTTP and returns the flags that reach
// it with no cluster at hand.
func fakeFixNode(t *testing.T, scenario string) (*fakenode.Node, []string) {
	t.Helper()
	fsys, meta, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: meta.Nodes[0]})
	srv, err := fakenode.StartWinRM(t.Context(), fake, fakenode.WinRMOptions{User: "Administrator", Password: "fixpw",
		Basic: true, AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("WTS_PASSWORD", "fixpw")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	noClusterHere(t)
	return fake, []string{"--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http",
		"--node", meta.Nodes[0] + "=" + srv.Addr()}
}

func fixCalls(n *fakenode.Node) int {
	calls := 0
	for _, c := range n.Commands() {
		for _, name := range c.Calls {
			if strings.HasPrefix(name, "fix-") {
				calls++
			}
		}
	}
	return calls
}

func TestFixCommand(t *testing.T) {
	t.Run("dry run changes nothing", func(t *testing.T) {
		fake, access := fakeFixNode(t, "kubelet-service-stopped")
		code, out, errOut := run(t, append([]string{"fix", "SVC-KUBELET", "--dry-run"}, access...)...)
		if code != 0 || !strings.Contains(out, "Start-Service -Name 'kubelet'") || !strings.Contains(out, "dry run") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if fixCalls(fake) != 0 {
			t.Fatal("a dry run reached the node")
		}
	})
	t.Run("no terminal and no --yes refuses", func(t *testing.T) {
		fake, access := fakeFixNode(t, "kubelet-service-stopped")
		code, _, errOut := run(t, append([]string{"fix", "SVC-KUBELET", "--node", "winpool-7k2pq"}, access...)...)
		if code != 2 || !strings.Contains(errOut, "no terminal to confirm on: pass --yes") || fixCalls(fake) != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		// Nobody was asked, so nobody declined: the audit says refused.
		entries, _ := (&engine.Audit{Path: engine.DefaultAuditPath()}).Entries()
		if len(entries) != 1 || entries[0].Result != engine.Refused {
			t.Fatalf("audit %+v", entries)
		}
	})
	t.Run("disruptive needs --confirm with the node name", func(t *testing.T) {
		fake, access := fakeFixNode(t, "pause-containerd-wrong-tag")
		node := strings.SplitN(access[len(access)-1], "=", 2)[0]
		args := append([]string{"fix", "IMG-PAUSE", "--choice", "multiarch-pause"}, access...)
		code, _, errOut := run(t, append(args, "--yes")...)
		if code != 2 || !strings.Contains(errOut, "--yes alone does not run it; add --confirm "+node) || fixCalls(fake) != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, _, errOut = run(t, append(args, "--yes", "--confirm", "win-other")...)
		if code != 2 || !strings.Contains(errOut, "is not the node name") || fixCalls(fake) != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, out, errOut := run(t, append(args, "--yes", "--confirm", node)...)
		if code != 0 || !strings.Contains(out, "verified: ✓ IMG-PAUSE") || fixCalls(fake) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		entries, _ := (&engine.Audit{Path: engine.DefaultAuditPath()}).Entries()
		if len(entries) != 3 || entries[0].Result != engine.Refused || entries[1].Result != engine.Refused || entries[2].Result != engine.Verified {
			t.Fatalf("audit %+v", entries)
		}
	})
	t.Run("runs and verifies", func(t *testing.T) {
		fake, access := fakeFixNode(t, "kubelet-service-stopped")
		code, out, errOut := run(t, append([]string{"fix", "SVC-KUBELET", "--yes"}, access...)...)
		if code != 0 || !strings.Contains(out, "verified: ✓ SVC-KUBELET") || fixCalls(fake) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if strings.Contains(out+errOut, "fixpw") {
			t.Fatal("the password was printed")
		}
		code, out, _ = run(t, append([]string{"fix", "SVC-KUBELET", "--yes"}, access...)...)
		if code != 0 || !strings.Contains(out, "nothing to fix") {
			t.Fatalf("second run: exit %d %s", code, out)
		}
	})
	t.Run("choices need --choice", func(t *testing.T) {
		_, access := fakeFixNode(t, "pause-containerd-wrong-tag")
		code, _, errOut := run(t, append([]string{"fix", "IMG-PAUSE", "--yes"}, access...)...)
		if code != 2 || !strings.Contains(errOut, "tag-pause") || !strings.Contains(errOut, "multiarch-pause") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

// TestFixDrainAgainstAPIServer: `fix` drains the way its preview says, against a real API
// server. The HNS network was built for another podCIDR, so HNS-NETWORK offers a drain; a
// pod no controller manages makes kubectl drain refuse, so the preview says so and the
// run is refused with nothing changed, until --force; then both pods are evicted (they
// stay Terminating: no kubelet runs here) and the drain verifies as the node cordoned.
func TestFixDrainAgainstAPIServer(t *testing.T) {
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	fsys, meta, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	served := withPodUIDs(t, fsys, seed(t, cs, fsys)).(fstest.MapFS)
	served[evidence.NodeFile(node, evidence.FileHNSNetworks)] = &fstest.MapFile{Data: []byte(
		`[{"Name":"nat","Type":"nat","Subnets":[{"AddressPrefix":"172.24.144.0/20"}]},` +
			`{"Name":"l2bridge","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.200.9.0/24","GatewayAddress":"10.200.9.1"}]}]`)}
	debug := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "debug", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "d", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2019"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(t.Context(), debug, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	srv, err := fakenode.StartWinRM(t.Context(), fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: node}),
		fakenode.WinRMOptions{User: "Administrator", Password: "fixpw", Basic: true, AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("WTS_PASSWORD", "fixpw")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	args := []string{"fix", "HNS-NETWORK", "--kubeconfig", cl.Kubeconfig, "--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http",
		"--node", node + "=" + srv.Addr(), "--drain-timeout", "1s"}
	cordoned := func() bool {
		n, err := cs.CoreV1().Nodes().Get(t.Context(), node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n.Spec.Unschedulable
	}

	code, out, errOut := run(t, append(args, "--dry-run")...)
	for _, want := range []string{"kubectl drain " + node + " --ignore-daemonsets --timeout=1s",
		"Evicts now (PodDisruptionBudgets hold): default/iis-",
		"REFUSES: cannot delete Pods that declare no controller (use --force to override): default/debug"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("dry run: exit %d, no %q in\n%s\n%s", code, want, out, errOut)
		}
	}
	code, out, errOut = run(t, append(args, "--yes", "--confirm", node)...)
	if code != 2 || !strings.Contains(errOut, "kubectl drain refuses") || cordoned() {
		t.Fatalf("drain with an unmanaged pod: exit %d, cordoned %v\n%s\n%s", code, cordoned(), out, errOut)
	}
	code, out, errOut = run(t, append(args, "--yes", "--confirm", node, "--force")...)
	if code != 0 || !strings.Contains(out, "verified: ! NODE-SCHEDULING") || !strings.Contains(out, "evicted 2 pod(s)") ||
		!strings.Contains(out, "still terminating") || !cordoned() {
		t.Fatalf("drain --force: exit %d, cordoned %v\n%s\n%s", code, cordoned(), out, errOut)
	}
	entries, _ := (&engine.Audit{Path: engine.DefaultAuditPath()}).Entries()
	if len(entries) != 2 || entries[0].Result != engine.Refused || entries[1].Result != engine.Verified ||
		!strings.Contains(strings.Join(entries[1].Commands, " "), "--force") {
		t.Fatalf("audit %+v", entries)
	}
}
