package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// TestAuditRedactsEntries: what a node printed and the commands a fix ran are redacted
// (rules and the run's literal password) before they reach the log.
func TestAuditRedactsEntries(t *testing.T) {
	r := redact.Default()
	if err := r.AddLiteral("NodePw-8812"); err != nil {
		t.Fatal(err)
	}
	a := &Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl"), Redact: r}
	err := a.Append(AuditEntry{Node: "win-1", Fix: "x", Commands: []string{"net user Administrator NodePw-8812"},
		Output: "login with --password=CmdPw-7781 failed; NodePw-8812", Result: Verified})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(a.Path)
	for _, s := range []string{"NodePw-8812", "CmdPw-7781"} {
		if strings.Contains(string(b), s) {
			t.Errorf("the audit log holds %q:\n%s", s, b)
		}
	}
	if es, err := a.Entries(); err != nil || len(es) != 1 || es[0].Node != "win-1" {
		t.Fatalf("the redacted log does not read back: %v %v", es, err)
	}
}

// TestAuditCheck: a log that cannot be written is found before any fix, with the way out.
func TestAuditCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	os.WriteFile(file, nil, 0o600)
	err := (&Audit{Path: filepath.Join(file, "wintroubleshoot", "audit.jsonl")}).Check()
	if err == nil || !strings.Contains(err.Error(), "cannot write the audit log at") || !strings.Contains(err.Error(), "--no-audit") {
		t.Fatalf("Check = %v", err)
	}
	if err := (&Audit{Path: filepath.Join(t.TempDir(), "a", "audit.jsonl")}).Check(); err != nil {
		t.Fatalf("a writable log: %v", err)
	}
	var none *Audit // --no-audit
	if err := none.Check(); err != nil {
		t.Fatal(err)
	}
}
