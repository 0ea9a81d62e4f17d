package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScreenOnlyOnATerminal: `wintroubleshoot -o json > file` prints the report (before, it
// drew the screen into the file, escape codes and all, and exited 0); without a terminal
// and without an output format the run says what to pass instead of failing inside
// bubbletea.
func TestScreenOnlyOnATerminal(t *testing.T) {
	_, access := fakeFixNode(t, "kubelet-service-stopped")
	code, out, errOut := run(t, append([]string{"-o", "json"}, access...)...)
	if code != 1 {
		t.Fatalf("-o json: exit %d, want 1 (findings)\nstderr: %s\nstdout: %.300q", code, errOut, out)
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.SchemaVersion == 0 || strings.Contains(out, "\x1b") {
		t.Fatalf("-o json did not print the JSON report (%v): %.300q", err, out)
	}
	code, out, errOut = run(t, access...)
	if code != 2 || out != "" || !strings.Contains(errOut, "needs a terminal") || !strings.Contains(errOut, "--report") {
		t.Errorf("no terminal, no format: exit %d\nstderr: %s\nstdout: %.300q", code, errOut, out)
	}
	code, out, errOut = run(t, "demo", "--scenario", "routes-missing")
	if code != 2 || out != "" || !strings.Contains(errOut, "needs a terminal") {
		t.Errorf("demo without a terminal: exit %d\nstderr: %s\nstdout: %.300q", code, errOut, out)
	}
}
