package main

import (
	"path/filepath"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestSameEvidenceSameBytes: the same evidence gives byte-identical reports in every
// format, from a folder, from a bundle, and from a live sweep of fake nodes (which answer
// in whatever order they finish); diff of the same two bundles says the same each time.
func TestSameEvidenceSameBytes(t *testing.T) {
	dir := scenarioDir(t, "podcidr-empty")
	snap := filepath.Join(t.TempDir(), "case.tar.gz")
	if _, err := bundle.Write(t.Context(), snap, bundle.FSSource(mustSub(t, "podcidr-empty")), bundle.Options{Tool: "wintroubleshoot", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	healthy := filepath.Join(t.TempDir(), "healthy.tar.gz")
	if _, err := bundle.Write(t.Context(), healthy, bundle.FSSource(mustSub(t, "healthy-sdn-l2bridge-docker")), bundle.Options{Tool: "wintroubleshoot", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	demo := []string{"demo", "--report", "--scenario", "podcidr-empty", "--scenario", "reboot-services-stopped", "--scenario", "routes-missing"}
	for _, f := range report.Formats() {
		for name, args := range map[string][]string{
			"folder": {"analyze", dir, "-o", string(f)},
			"bundle": {"analyze", snap, "-o", string(f)},
			"live":   append(append([]string{}, demo...), "-o", string(f)),
		} {
			code, first, errOut := run(t, args...)
			if code != report.ExitFindings {
				t.Fatalf("%s %s: exit %d: %s", f, name, code, errOut)
			}
			if _, again, _ := run(t, args...); again != first {
				t.Errorf("%s from a %s: two runs differ", f, name)
			}
		}
	}
	_, first, _ := run(t, "diff", healthy, snap)
	if _, again, _ := run(t, "diff", healthy, snap); again != first || first == "" {
		t.Errorf("diff of the same bundles: two runs differ or say nothing:\n%s", first)
	}
}
