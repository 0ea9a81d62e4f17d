package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// fakeRedactor replaces one word and records the names it was asked under.
type fakeRedactor struct {
	word  string
	names []string
}

func (r *fakeRedactor) Redact(name, s string) string {
	r.names = append(r.names, name)
	return strings.ReplaceAll(s, r.word, "***REDACTED***")
}

// TestCopyAndPagerAreRedacted: what leaves the screen (the y copy, the e pager, in
// $PAGER and in the in-app viewer) goes through the Redactor, the evidence under its
// own file name.
func TestCopyAndPagerAreRedacted(t *testing.T) {
	m, _, _, _ := standard(t)
	red := &fakeRedactor{word: "flannel.4096"}
	m.opts.Redactor = red
	var copied, paged string
	m.opts.Clipboard = func(text string) tea.Cmd { copied = text; return nil }
	m.opts.Pager = func(_ string, content []byte) tea.Cmd { paged = string(content); return nil }
	m = selectFinding(t, started(t, m), "HNS-NETWORK")
	press(t, m, runeKey('y'))
	// Redacted before Markdown escapes, so the marker is escaped too: it shows as it is.
	if strings.Contains(copied, "flannel.4096") || !strings.Contains(copied, `\*\*\*REDACTED\*\*\*`) {
		t.Fatalf("the copy was not redacted:\n%s", copied)
	}
	red.word = "nat"
	press(t, m, runeKey('e'))
	if strings.Contains(paged, `"nat"`) || !strings.Contains(paged, "***REDACTED***") {
		t.Fatalf("the pager's content was not redacted:\n%s", paged)
	}
	m.opts.Pager = nil
	d := press(t, m, runeKey('e'))
	if d.pager == nil || strings.Contains(d.pager.text, `"nat"`) {
		t.Fatal("the in-app viewer shows unredacted evidence")
	}
	var names []string
	for _, n := range red.names {
		if n != "report.txt" && n != "fix.txt" { // the finding's texts, before Markdown escapes them
			names = append(names, n)
		}
	}
	if want := []string{"finding.md", "nodes/win-a/hns-networks.json", "nodes/win-a/hns-networks.json"}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("redacted as %v, want %v", names, want)
	}
}

// redactor is the real redactor as the screen asks for it.
type redactor struct{ r *redact.Redactor }

func (r redactor) Redact(name, s string) string { return r.r.String(name, s) }

// TestCopyRedactsBeforeMarkdown: a secret in a text the Markdown copy escapes
// (SECRET_KEY is SECRET\_KEY there) is not copied. Before, the copy was redacted after
// Markdown had escaped it, and the key was copied.
func TestCopyRedactsBeforeMarkdown(t *testing.T) {
	m, _, _, _ := standard(t)
	m.opts.Redactor = redactor{redact.Default()}
	m.opts.Context = "SECRET_KEY=SeedTuiKey-7"
	var copied string
	m.opts.Clipboard = func(text string) tea.Cmd { copied = text; return nil }
	m = selectFinding(t, started(t, m), "HNS-NETWORK")
	press(t, m, runeKey('y'))
	if strings.Contains(copied, "SeedTuiKey") || !strings.Contains(copied, "HNS-NETWORK") {
		t.Fatalf("the copy holds the key, or lost the finding:\n%s", copied)
	}
}
