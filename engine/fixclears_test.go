package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// TestFixReverifiesConsequences: fixing a root cause (the reboot case: services not set
// to start) judges its consequences again over real WinRM and says which cleared. The
// node's services run again; NODE-READY reads the cluster, which no kubelet updates here,
// so it stays failing and is not claimed.
func TestFixReverifiesConsequences(t *testing.T) {
	b := newFixBench(t, "reboot-services-stopped")
	f := b.finding(t, "SVC-REBOOT")
	fix := pick(f, "service-autostart")
	if fix == nil {
		t.Fatalf("no service-autostart fix: %+v", f.Fix)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified {
		t.Fatalf("apply: %v %+v", err, out)
	}
	var cleared []string
	for _, r := range out.Cleared {
		if r.Node != b.node {
			t.Errorf("cleared %v is on another node", r)
		}
		cleared = append(cleared, r.Probe)
	}
	for _, want := range []string{"SVC-KUBELET", "SVC-KUBEPROXY", "SVC-RUNTIME"} {
		if !slices.Contains(cleared, want) {
			t.Errorf("cleared %v lacks %s", cleared, want)
		}
	}
	if slices.Contains(cleared, "NODE-READY") {
		t.Errorf("NODE-READY claimed cleared, but the cluster still shows the node not ready: %v", cleared)
	}
	if !strings.Contains(out.Line(), "also cleared: ") {
		t.Errorf("outcome line does not say what cleared: %s", out.Line())
	}
}
