package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// findingsPane lists the selected node's findings that pass the filter.
type findingsPane struct {
	listCursor
	items []int // indexes into node.findings, cached until the node or filter changes
	idW   int   // width of the probe ID column
}

// load refreshes the cached items for n, keeping the selection on the probe keep when
// it is still listed (read it with selected before the node changes).
func (p *findingsPane) load(s *store, n *node, keep string) {
	p.items, p.idW = nil, 0
	if n != nil {
		p.items = s.findingsOf(n)
		for _, i := range p.items {
			p.idW = max(p.idW, ansi.StringWidth(n.findings[i].Probe))
		}
	}
	p.idW = min(p.idW, 18)
	for i, idx := range p.items {
		if keep != "" && n.findings[idx].Probe == keep {
			p.set(i, len(p.items))
			return
		}
	}
	p.clamp(len(p.items))
}

// reset loads a newly selected node with the cursor on its first (worst) finding.
func (p *findingsPane) reset(s *store, n *node) {
	p.pos, p.offset = 0, 0
	p.load(s, n, "")
}

// selected returns the selected finding of n.
func (p findingsPane) selected(n *node) (probes.Finding, bool) {
	if n == nil || p.pos < 0 || p.pos >= len(p.items) || p.items[p.pos] >= len(n.findings) {
		return probes.Finding{}, false
	}
	return n.findings[p.items[p.pos]], true
}

// view renders the pane: w x h including its frame.
func (p findingsPane) view(n *node, st styles, w, h int, focused bool) string {
	title := "Findings"
	var lines []string
	switch {
	case n == nil:
	case len(n.findings) == 0:
		lines = []string{st.dim.Render(" " + emptyFindings(n))}
		title = "Findings · " + oneLine(n.label())
	default:
		title = fmt.Sprintf("Findings · %s · %d", oneLine(n.label()), len(n.findings))
		if len(p.items) != len(n.findings) {
			title = fmt.Sprintf("Findings · %s · %d/%d", oneLine(n.label()), len(p.items), len(n.findings))
		}
		iw := w - 2
		from, to := p.window(len(p.items))
		for i := from; i < to; i++ {
			lines = append(lines, p.row(n.findings[p.items[i]], len(n.causes[p.items[i]]) > 0, st, iw, i == p.pos, focused))
		}
	}
	return st.box(title, lines, w, h, focused)
}

func emptyFindings(n *node) string {
	switch {
	case n.state == nodeRunning:
		return "probing…"
	case n.state == nodeQueued:
		return "waiting for its sweep to start"
	case n.cancelled && !n.judged:
		return "cancelled before it was judged (r re-probes)"
	case !n.judged:
		return "not probed yet"
	default:
		return "no findings"
	}
}

// row is "› ✗ HNS-NETWORK    summary"; a consequence is folded under its cause as
// "  ✗ └ HNS-NETWORK".
func (p findingsPane) row(f probes.Finding, consequence bool, st styles, w int, sel, focused bool) string {
	id := f.Probe
	if consequence {
		id = "└ " + id
	}
	if ansi.StringWidth(id) > p.idW {
		id = ansi.Truncate(id, p.idW, "…")
	}
	id += strings.Repeat(" ", max(0, p.idW-ansi.StringWidth(id)))
	sum := ansi.Truncate(oneLine(f.Summary), max(1, w-p.idW-6), "…")
	if sel {
		row := "› " + f.Status.Glyph() + " " + id + "  " + sum
		if focused {
			return st.selected.Render(fit(row, w))
		}
		return st.selBlur.Render(fit(row, w))
	}
	return "  " + st.glyph(f.Status) + " " + id + "  " + sum
}
