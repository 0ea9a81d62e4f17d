package tui

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestMixedFleetShowsKinds: once a Linux node (its os.json) is judged, its row says so
// before its note; Windows rows and a fleet without Linux nodes show no marker.
func TestMixedFleetShowsKinds(t *testing.T) {
	fs := map[string][]probes.Finding{
		"node-1": {{Probe: "LINUX-SWAP", Node: "node-1", Status: probes.Fail, Summary: "swap is on"}},
		"win-1":  {{Probe: "HOST-UPTIME", Node: "win-1", Status: probes.Pass, Summary: "ok"}},
	}
	be := newFakeBackend(fs)
	m := started(t, testModel(t, Options{Nodes: []string{"node-1", "win-1"}, Backend: be}, 80, 24))
	mustContain(t, m, "✗ node-1", "✓ win-1")
	mustNotContain(t, m, "lnx ")

	be = newFakeBackend(fs)
	be.evidence["nodes/node-1/os.json"] = []byte(`{"Kind":"linux","Hostname":"node-1"}` + "\n")
	m = started(t, testModel(t, Options{Nodes: []string{"node-1", "win-1"}, Backend: be}, 80, 24))
	mustContain(t, m, "lnx 1✗")
	for _, line := range strings.Split(screen(m), "\n") {
		if strings.Contains(line, "win-1") && strings.Contains(line, "lnx") {
			t.Errorf("the Windows row is marked Linux: %q", line)
		}
	}
}
