package main

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
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
	return fake, []string{"--kubeconfig", t.TempDir() + "/none", "--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http",
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
		if code != 2 || !strings.Contains(errOut, "--yes") || fixCalls(fake) != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		entries, _ := (&engine.Audit{Path: engine.DefaultAuditPath()}).Entries()
		if len(entries) != 1 || entries[0].Result != "declined" {
			t.Fatalf("audit %+v", entries)
		}
	})
	t.Run("disruptive needs --allow-disruptive", func(t *testing.T) {
		fake, access := fakeFixNode(t, "pause-containerd-wrong-tag")
		code, _, errOut := run(t, append([]string{"fix", "IMG-PAUSE", "--choice", "multiarch-pause", "--yes"}, access...)...)
		if code != 2 || !strings.Contains(errOut, "--allow-disruptive") || fixCalls(fake) != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, out, errOut := run(t, append([]string{"fix", "IMG-PAUSE", "--choice", "multiarch-pause", "--yes", "--allow-disruptive"}, access...)...)
		if code != 0 || !strings.Contains(out, "verified") || fixCalls(fake) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
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
