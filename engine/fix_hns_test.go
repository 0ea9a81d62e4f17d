package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestRestartHNSFixEndToEnd: on hns-deadlocked the restart-hns fix is disruptive, so it
// runs only once the node's name is typed; it goes through real WinRM to the fake node
// as fix-restart-hns with kube-proxy's service name as data, and HNS-HEALTH passes after.
func TestRestartHNSFixEndToEnd(t *testing.T) {
	b := newFixBench(t, "hns-deadlocked")
	f := b.finding(t, "HNS-HEALTH")
	if f.Status != probes.Fail {
		t.Fatalf("HNS-HEALTH before the fix: %s %s", f.Status, f.Summary)
	}
	fix := pick(f, "restart-hns")
	if fix == nil || !fix.Disruptive || fix.Params["KubeProxy"] != "kube-proxy" {
		t.Fatalf("fix %+v", f.Fix)
	}
	if !slices.ContainsFunc(fix.Commands, func(c string) bool { return c == "Restart-Service -Name 'kube-proxy' -Force" }) {
		t.Errorf("the preview does not restart kube-proxy: %q", fix.Commands)
	}
	if _, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y")); err == nil {
		t.Fatal("a disruptive fix ran on a plain yes")
	}
	if calls := b.fixCalls(); len(calls) != 0 {
		t.Fatalf("the node ran %v before the confirmation", calls)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed(b.node))
	if err != nil {
		t.Fatalf("apply: %v (output %q)", err, out.Output)
	}
	if out.Result != engine.Verified || out.After.Status != probes.Pass {
		t.Fatalf("not verified: %s %s", out.After.Status, out.After.Summary)
	}
	if calls := b.fixCalls(); len(calls) != 1 || calls[0] != "fix-restart-hns" {
		t.Fatalf("the node ran %v, want exactly fix-restart-hns", calls)
	}
}
