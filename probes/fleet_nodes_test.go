package probes_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestNodeClone: a clone with the node's InternalIP fails, naming the system UUID and
// computer name it shares too; one sharing only the UUID and computer name warns; a fleet
// of distinct nodes passes.
func TestNodeClone(t *testing.T) {
	const an = "winpool-7k2pq"
	f := judge(t, "NODE-CLONE", an, mustLoad(t, "nodes-cloned"))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "winpool-r8m3t also registered InternalIP 10.0.10.41") ||
		!detailsHave(f, "same system UUID") || !detailsHave(f, "same Windows computer name WINPOOL-7K2PQ") || f.Fix == nil {
		t.Errorf("clone: %s %q %v", f.Status, f.Summary, f.Details)
	}
	// The copy got its own address by DHCP, but keeps the template's UUID and name.
	f = judge(t, "NODE-CLONE", an, edited(t, "nodes-cloned", "nodes.json",
		`"address": "10.0.10.41",
                        "type": "InternalIP"
                    },
                    {
                        "address": "winpool-r8m3t"`, `"address": "10.0.10.77",
                        "type": "InternalIP"
                    },
                    {
                        "address": "winpool-r8m3t"`))
	if f.Status != probes.Warn || !strings.Contains(f.Summary, "same system UUID") {
		t.Errorf("clone with its own address: %s %q", f.Status, f.Summary)
	}
	if f := judge(t, "NODE-CLONE", an, mustLoad(t, "fleet-patch-drift")); f.Status != probes.Pass {
		t.Errorf("distinct nodes: %s %q", f.Status, f.Summary)
	}
}

// TestFleetPatch: a node behind its pool's newest update warns, the newest passes, a
// pool mixing builds warns, a node alone in its pool passes, and a kernelVersion without
// its UBR skips.
func TestFleetPatch(t *testing.T) {
	const an, peer = "winpool-7k2pq", "winpool-q4v9z"
	f := judge(t, "FLEET-PATCH", an, mustLoad(t, "fleet-patch-drift"))
	if f.Status != probes.Warn || !strings.Contains(f.Summary, "runs 10.0.17763.2628, behind 10.0.17763.2746 on "+peer) || f.Fix == nil {
		t.Errorf("behind: %s %q", f.Status, f.Summary)
	}
	newer := edited(t, "fleet-patch-drift", "nodes.json", `"kernelVersion": "10.0.17763.2746"`, `"kernelVersion": "10.0.17763.2500"`)
	if f := judge(t, "FLEET-PATCH", an, newer); f.Status != probes.Pass || !strings.Contains(f.Summary, "the newest update of pool winpool") {
		t.Errorf("newest: %s %q", f.Status, f.Summary)
	}
	mixed := edited(t, "fleet-patch-drift", "nodes.json", `"kernelVersion": "10.0.17763.2746"`, `"kernelVersion": "10.0.20348.2402"`)
	if f := judge(t, "FLEET-PATCH", an, mixed); f.Status != probes.Warn || !strings.Contains(f.Summary, "mixes Windows builds") {
		t.Errorf("mixed builds: %s %q", f.Status, f.Summary)
	}
	if f := judge(t, "FLEET-PATCH", an, mustLoad(t, "healthy-containerd-overlay")); f.Status != probes.Pass || !strings.Contains(f.Summary, "the only Windows node") {
		t.Errorf("alone: %s %q", f.Status, f.Summary)
	}
	noUBR := edited(t, "fleet-patch-drift", "nodes.json", `"kernelVersion": "10.0.17763.2628"`, `"kernelVersion": "10.0.17763"`)
	if f := judge(t, "FLEET-PATCH", an, noUBR); f.Status != probes.Skip {
		t.Errorf("no UBR: %s %q", f.Status, f.Summary)
	}
}
