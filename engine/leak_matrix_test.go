package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/leakmatrix"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestLeakMatrixBundleAndAudit is the corpus matrix (fixtures/leakmatrix) through what
// engine writes: a snapshot's report.md and findings.json, from findings quoting the
// evidence read back through intake (its excerpts read through the bundle's reader), and
// the audit log, whose entries carry what a node printed raw. No secret comes out and
// every audit line stays one JSON object.
func TestLeakMatrixBundleAndAudit(t *testing.T) {
	planted, stats, err := leakmatrix.Load(context.Background(), t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	red := redact.Default()
	audit := &Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl"), Redact: red}
	for _, group := range leakmatrix.Groups(planted) {
		if group[0].Route != "folder" {
			continue // report's matrix takes both routes through the same writer
		}
		findings, excerpts := leakmatrix.Findings(group)
		spool := t.TempDir()
		read := func(_, p string) ([]byte, error) { return []byte(excerpts[p]), nil }
		if err := writeReports(spool, report.Meta{Tool: "wintroubleshoot"}, findings, read, "", red); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{evidence.BundleReport, evidence.BundleFindings} {
			b, err := os.ReadFile(filepath.Join(spool, name))
			if err != nil {
				t.Fatal(err)
			}
			if name == evidence.BundleFindings && !json.Valid(b) {
				t.Errorf("%s of %s/%s is not JSON", name, group[0].Format, group[0].Route)
			}
			if leaks := leakmatrix.Leaks(string(b), group); len(leaks) > 0 {
				t.Errorf("%s: %d secrets came out, e.g. %s", name, len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
			}
		}
		for _, p := range group {
			raw := string(p.Raw)
			if strings.HasPrefix(p.Format, "utf-16") {
				raw = p.Read // a node's reply is decoded text by the time it is audited
			}
			if err := audit.Append(AuditEntry{Node: "win-a", Probe: "LEAK", Fix: "fix", Commands: []string{raw}, Result: Failed, Output: raw}); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := os.ReadFile(audit.Path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("audit line %d is not JSON: %s", i+1, line)
		}
	}
	var text strings.Builder
	entries, err := audit.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		text.WriteString(strings.Join(e.Commands, "\n") + "\n" + e.Output + "\n")
	}
	if leaks := leakmatrix.Leaks(text.String()+string(b), planted); len(leaks) > 0 {
		t.Errorf("audit log: %d secrets came out, e.g. %s", len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
	}
	t.Logf("matrix: %v; outputs: report.md, findings.json, audit.jsonl (%d entries)", stats, len(entries))
}
