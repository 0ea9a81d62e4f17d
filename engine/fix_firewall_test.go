package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestFirewallKubeletFixEndToEnd: on the node whose firewall drops TCP 10250, HOST-FIREWALL
// previews sig-windows-tools PrepareNode.ps1's rule; fix-firewall-kubelet runs over real
// WinRM on the fake node (the script as the engine sends it, no parameters), the node
// switches to the scenario's after-state, and HOST-FIREWALL passes.
func TestFirewallKubeletFixEndToEnd(t *testing.T) {
	b := newFixBench(t, "firewall-kubelet-closed")
	f := b.finding(t, "HOST-FIREWALL")
	if f.Status != probes.Fail {
		t.Fatalf("HOST-FIREWALL before the fix: %s %q", f.Status, f.Summary)
	}
	fix := pick(f, "firewall-kubelet")
	if fix == nil || fix.Disruptive || len(fix.Params) != 0 {
		t.Fatalf("fix %+v", f.Fix)
	}
	want := "New-NetFirewallRule -Name kubelet -DisplayName 'kubelet' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250"
	if len(fix.Commands) != 1 || fix.Commands[0] != want {
		t.Errorf("preview %q, want %q", fix.Commands, want)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil {
		t.Fatalf("apply: %v (output %q)", err, out.Output)
	}
	if out.Result != engine.Verified || out.After.Status != probes.Pass || !strings.Contains(out.After.Summary, `allowed by "kubelet"`) {
		t.Fatalf("not verified: %s %s %q", out.Result, out.After.Status, out.After.Summary)
	}
	if !strings.Contains(out.Output, "kubelet") || !strings.Contains(out.Output, "Allow") {
		t.Errorf("the fix printed %q", out.Output)
	}
	if calls := b.fixCalls(); len(calls) != 1 || calls[0] != "fix-firewall-kubelet" {
		t.Fatalf("the node ran %v, want exactly fix-firewall-kubelet", calls)
	}
	entries, err := b.audit.Entries()
	if err != nil || len(entries) != 1 || entries[0].Result != engine.Verified {
		t.Fatalf("audit %+v %v", entries, err)
	}
}
