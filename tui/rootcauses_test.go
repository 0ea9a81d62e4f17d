package tui

import (
	"strings"
	"testing"
)

// TestRootCausesView: c opens the fleet's root causes, each with what its fix should
// also clear; a consequence is not listed as a root cause of its own.
func TestRootCausesView(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	m = press(t, m, runeKey('c')).Model
	if m.pager == nil || m.pager.path != rootCausesTitle {
		t.Fatal("c did not open the root causes")
	}
	mustContain(t, m, "root causes: fix these first", "HNS-NETWORK on win-a", "fixing this should also clear: HNS-KPROXY-NET")
	if got := rootCausesText(nil); got != "no root causes: nothing fails on the judged nodes" {
		t.Errorf("empty fleet: %q", got)
	}
	for _, n := range m.store.nodes {
		for _, f := range n.findings {
			if f.Probe == "HNS-KPROXY-NET" && f.Node == "win-a" {
				if txt := rootCausesText(n.findings); strings.Contains(txt, " HNS-KPROXY-NET on win-a:") {
					t.Errorf("a consequence listed as a root cause:\n%s", txt)
				}
			}
		}
	}
}
