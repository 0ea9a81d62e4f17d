package foreign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// TestOpenEvidenceRedactsByTheRunsRules: analyze reads our folder through the run's
// redactor, so a --redact-rules rule applies at intake, before any probe, excerpt or
// pager sees the file; without one the default rules still do. Before, intake always
// used the default rules alone.
func TestOpenEvidenceRedactsByTheRunsRules(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "nodes", "w"), 0o755); err != nil {
		t.Fatal(err)
	}
	log := "X-Ticket-Key: TicketSeed-771\npassword=DefaultSeed-772\n"
	if err := os.WriteFile(filepath.Join(dir, "nodes", "w", "app.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(append(redact.DefaultRules(), redact.Rule{Name: "ticket", Regex: `X-Ticket-Key: (\S+)`, Group: 1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		red  *redact.Redactor
		gone []string
	}{{red, []string{"TicketSeed-771", "DefaultSeed-772"}}, {nil, []string{"DefaultSeed-772"}}} {
		ev, _, closer, _, err := OpenEvidence(context.Background(), dir, Options{Redact: c.red})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ev.Read("nodes/w/app.log")
		closer.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.gone {
			if strings.Contains(string(b), s) {
				t.Errorf("%q read back at intake:\n%s", s, b)
			}
		}
	}
}
