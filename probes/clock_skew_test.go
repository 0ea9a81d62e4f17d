package probes_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestClockSkew: a Lease written 7 minutes after its renewTime fails, naming the
// not-yet-valid certificate it causes and the w32tm commands; 2 minutes ahead warns;
// every node of a healthy scenario passes; a Lease without managed fields, a node without
// a Lease and evidence without the file skip.
func TestClockSkew(t *testing.T) {
	const an = "winpool-7k2pq"
	f := judge(t, "CLOCK-SKEW", an, mustLoad(t, "clock-skew-node-behind"))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "7m0s behind") || !detailsHave(f, "not yet valid by its clock") ||
		f.Fix == nil || !strings.Contains(strings.Join(f.Fix.Commands, "\n"), "w32tm /resync /force") {
		t.Errorf("behind: %s %q %v %+v", f.Status, f.Summary, f.Details, f.Fix)
	}
	ahead := edited(t, "healthy-containerd-overlay", "node-leases.json", `"time": "2022-03-08T10:14:52Z"`, `"time": "2022-03-08T10:12:52Z"`)
	if f := judge(t, "CLOCK-SKEW", an, ahead); f.Status != probes.Warn || !strings.Contains(f.Summary, "2m0s ahead of") {
		t.Errorf("ahead: %s %q", f.Status, f.Summary)
	}
	if f := judge(t, "CLOCK-SKEW", an, mustLoad(t, "healthy-containerd-overlay")); f.Status != probes.Pass || !strings.Contains(f.Summary, "within 1s") {
		t.Errorf("healthy: %s %q", f.Status, f.Summary)
	}
	noManaged := edited(t, "healthy-containerd-overlay", "node-leases.json", `"f:renewTime"`, `"f:other"`)
	if f := judge(t, "CLOCK-SKEW", an, noManaged); f.Status != probes.Skip || !strings.Contains(strings.Join(f.Details, " "), "--show-managed-fields") {
		t.Errorf("no managed fields: %s %q %v", f.Status, f.Summary, f.Details)
	}
	if f := judge(t, "CLOCK-SKEW", "win-9", mustLoad(t, "healthy-containerd-overlay")); f.Status != probes.Skip {
		t.Errorf("no Lease: %s %q", f.Status, f.Summary)
	}
	old := editedScenario(t, "healthy-containerd-overlay", func(path string, b []byte) []byte {
		if strings.HasSuffix(path, "node-leases.json") {
			return nil
		}
		return b
	})
	if f := judge(t, "CLOCK-SKEW", an, old); f.Status != probes.Skip || !strings.Contains(f.Summary, "--show-managed-fields") {
		t.Errorf("without node-leases.json: %s %q", f.Status, f.Summary)
	}
}
