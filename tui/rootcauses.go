package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// rootCausesTitle names the fleet's root-cause view in the pager's frame.
const rootCausesTitle = "root causes across the fleet"

// openRootCauses shows, in the pager, what to fix first across every judged node: the
// fleet's root causes, worst first, each with what fixing it should also clear. The
// findings are linked again over the whole fleet here, so a cause on one node explains
// an effect on another (a node's own list links only within the node).
func (m Model) openRootCauses() (tea.Model, tea.Cmd) {
	var all []probes.Finding
	for _, n := range m.store.nodes {
		all = append(all, n.findings...)
	}
	engine.Link(probes.CauseRules(), all)
	m.pager = newPager(rootCausesTitle, []byte(rootCausesText(all)), m.lay.w-2, m.lay.bodyH-2)
	return m, nil
}

// rootCausesText is the view's body: one entry per root cause.
func rootCausesText(all []probes.Finding) string {
	roots := report.RootCauses(all)
	if len(roots) == 0 {
		return "no root causes: nothing fails on the judged nodes"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d root causes: fix these first, the other failures follow from them\n", len(roots))
	for _, r := range roots {
		fmt.Fprintf(&b, "\n%s %s: %s\n", r.Status.Glyph(), r.Ref, oneLine(r.Summary))
		if len(r.Clears) > 0 {
			names := make([]string, len(r.Clears))
			for i, c := range r.Clears {
				names[i] = c.Probe
				if c.Node != r.Node {
					names[i] = c.String()
				}
			}
			fmt.Fprintf(&b, "  fixing this should also clear: %s\n", strings.Join(names, ", "))
		}
	}
	return b.String()
}
