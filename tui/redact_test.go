package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
	if strings.Contains(copied, "flannel.4096") || !strings.Contains(copied, "***REDACTED***") {
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
	if want := []string{"finding.md", "nodes/win-a/hns-networks.json", "nodes/win-a/hns-networks.json"}; strings.Join(red.names, ",") != strings.Join(want, ",") {
		t.Errorf("redacted as %v, want %v", red.names, want)
	}
}
