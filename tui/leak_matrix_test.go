package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/leakmatrix"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// TestLeakMatrixCopyAndPager is the corpus matrix (fixtures/leakmatrix) through what
// leaves the screen: for each format and route, a finding quoting every sample read back
// through intake is copied (y, Markdown), and each sample's evidence file is paged (e)
// as the backend serves it. No secret comes out of either.
func TestLeakMatrixCopyAndPager(t *testing.T) {
	planted, stats, err := leakmatrix.Load(context.Background(), t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, group := range leakmatrix.Groups(planted) {
		var details []string
		for _, p := range group {
			details = append(details, p.Read)
		}
		path := "nodes/win-a/" + group[0].Format + ".evidence"
		f := probes.Finding{Probe: "LEAK-MATRIX", Node: "win-a", Status: probes.Fail, Summary: "planted " + group[0].Format + " via " + group[0].Route,
			Details: details, Evidence: []string{path}}
		be := newFakeBackend(map[string][]probes.Finding{"win-a": {f}})
		var copied, paged strings.Builder
		m := testModel(t, Options{Nodes: []string{"win-a"}, Backend: be, Redactor: redactor{redact.Default()},
			Clipboard: func(text string) tea.Cmd { copied.WriteString(text); return nil },
			Pager:     func(_ string, content []byte) tea.Cmd { paged.Write(content); paged.WriteString("\n"); return nil }}, 120, 40)
		m = selectFinding(t, started(t, m), "LEAK-MATRIX")
		press(t, m, runeKey('y'))
		for _, p := range group {
			be.evidence[path] = []byte(p.Read)
			press(t, m, runeKey('e'))
			pages++
		}
		if leaks := leakmatrix.Leaks(copied.String(), group); len(leaks) > 0 {
			t.Errorf("copy: %d secrets came out, e.g. %s", len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
		}
		if leaks := leakmatrix.Leaks(paged.String(), group); len(leaks) > 0 {
			t.Errorf("pager: %d secrets came out, e.g. %s", len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
		}
		if copied.Len() == 0 || paged.Len() == 0 {
			t.Fatalf("nothing copied or paged for %s/%s", group[0].Format, group[0].Route)
		}
	}
	t.Logf("matrix: %v; outputs: copy, pager (%d pages)", stats, pages)
}
