package probes_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProbesPullNoTransport: probes read evidence through keys that name snippets as
// strings, so the judging floor builds without transports or embedded scripts (a bundle
// reader, or a web front end, links no WinRM or SSH client).
func TestProbesPullNoTransport(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/collect/transport", "/collect/scripts", "/collect/kube/", "/ingest/bundle"} {
			if strings.Contains(dep+"/", banned+"/") && !strings.HasSuffix(dep, "/evidence/clusterconfig") {
				t.Errorf("probes depends on %s", dep)
			}
		}
		if strings.HasSuffix(dep, "/wintroubleshoot/collectors") {
			t.Errorf("probes depends on %s, which carries the sweep; use evidence", dep)
		}
	}
}
