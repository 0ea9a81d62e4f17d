package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Smallest screen the layout supports; below it the view says so.
const minW, minH = 60, 16

// layout is the geometry for one terminal size: a header (2 lines), the node list on
// the left, findings over detail on the right, and a footer (2 lines).
type layout struct {
	w, h, bodyH    int
	leftW, rightW  int
	findH, detailH int
}

func newLayout(w, h int) layout {
	l := layout{w: w, h: h, bodyH: max(4, h-4)}
	l.leftW = max(24, min(40, w*3/10))
	l.rightW = max(10, w-l.leftW)
	l.findH = max(5, l.bodyH*2/5)
	l.detailH = max(3, l.bodyH-l.findH)
	return l
}

// resize lays the panes out again and re-wraps what depends on the width.
func (m *Model) resize(w, h int) {
	m.lay = newLayout(w, h)
	m.nodes.height = m.lay.bodyH - 2
	m.nodes.clamp(len(m.store.visible))
	m.finds.height = m.lay.findH - 2
	m.finds.clamp(len(m.finds.items))
	m.byF.setSize(m.lay.bodyH-2, m.lay.findH-2)
	m.detail.setSize(m.lay.rightW-2, m.lay.detailH-2)
	m.help.SetWidth(w)
	m.filter.SetWidth(max(10, w-4))
	if m.pager != nil {
		m.pager.setSize(w-2, m.lay.bodyH-2)
	}
	m.syncDetail(false)
}

func (m Model) render() string {
	if m.quitting {
		return ""
	}
	l := m.lay
	if l.w < minW || l.h < minH {
		return fmt.Sprintf("wintroubleshoot needs at least %dx%d (now %dx%d)", minW, minH, l.w, l.h)
	}
	var body string
	if m.pager != nil {
		body = m.pager.view(m.st, l.w, l.bodyH)
	} else {
		var left, top string
		if m.grouped {
			left = m.byF.viewGroups(m.store, m.st, l.leftW, l.bodyH, m.focus == focusNodes)
			top = m.byF.viewMembers(m.st, l.rightW, l.findH, m.focus == focusFindings)
		} else {
			left = m.nodes.view(m.store, m.st, m.spin.View(), l.leftW, l.bodyH, m.focus == focusNodes)
			top = m.finds.view(m.selectedNode(), m.st, l.rightW, l.findH, m.focus == focusFindings)
		}
		right := top + "\n" + m.detail.view(m.st, l.rightW, l.detailH, m.focus == focusDetail)
		body = joinColumns(left, right)
	}
	screen := m.headerView() + "\n" + body + "\n" + m.footerView()
	switch {
	case len(m.asks) > 0:
		screen = overlay(screen, m.askView(l.w, l.h), l.w, l.h)
	case m.dlg != nil:
		screen = overlay(screen, m.dlg.view(m, l.w, l.h), l.w, l.h)
	case m.showHelp:
		screen = overlay(screen, m.helpView(), l.w, l.h)
	}
	return screen
}

// joinColumns puts two blocks of equal height side by side (each line already has
// its block's exact width).
func joinColumns(left, right string) string {
	ls, rs := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := range max(len(ls), len(rs)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(ls) {
			b.WriteString(ls[i])
		}
		if i < len(rs) {
			b.WriteString(rs[i])
		}
	}
	return b.String()
}

// headerView: who we look at and what is going on, then the counts by status.
func (m Model) headerView() string {
	w := m.lay.w
	left := m.st.title.Render("wintroubleshoot")
	if m.opts.Cluster != "" {
		left += "  " + m.st.dim.Render("cluster ") + oneLine(m.opts.Cluster)
	}
	if m.opts.Context != "" {
		left += "  " + m.st.dim.Render("context ") + oneLine(m.opts.Context)
	}
	judged, running, total := m.store.progress()
	right := fmt.Sprintf("%d/%d judged", judged, total)
	if running > 0 {
		right = m.spin.View() + " " + fmt.Sprintf("probing %d · %s", running, right)
	}
	line1 := spread(left, right, w)

	var parts []string
	for _, st := range []probes.Status{probes.Fail, probes.Error, probes.Warn, probes.Skip, probes.Pass} {
		parts = append(parts, fmt.Sprintf("%s %d %s", m.st.glyph(st), m.store.totals[st], st))
	}
	line2 := fit(strings.Join(parts, "  ")+m.st.dim.Render(fmt.Sprintf("   %d nodes", total)), w)
	return line1 + "\n" + line2
}

// footerView: a status or prompt line, then the keys that apply now.
func (m Model) footerView() string {
	w := m.lay.w
	var line string
	switch {
	case m.filtering:
		line = m.filter.View()
	case m.snap != nil:
		line = m.snap.view(m.st, w)
	case m.status != "":
		if m.statusErr {
			line = m.st.errText.Render(oneLine(m.status))
		} else {
			line = oneLine(m.status)
		}
	}
	return fit(line, w) + "\n" + fit(m.help.ShortHelpView(m.helpKeys().ShortHelp()), w)
}

// spread puts left and right on one line of width w, cutting left when needed.
func spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	lw := max(0, w-rw-1)
	if ansi.StringWidth(left) > lw {
		left = ansi.Truncate(left, lw, "…")
	}
	return left + strings.Repeat(" ", max(1, w-ansi.StringWidth(left)-rw)) + right
}

// overlay draws top centred over base (a w x h screen).
func overlay(base, top string, w, h int) string {
	bl, tl := strings.Split(base, "\n"), strings.Split(top, "\n")
	tw := 0
	for _, l := range tl {
		tw = max(tw, ansi.StringWidth(l))
	}
	x, y := max(0, (w-tw)/2), max(0, (h-len(tl))/2)
	for i, l := range tl {
		r := y + i
		if r >= len(bl) {
			break
		}
		row := bl[r]
		bl[r] = ansi.Cut(row, 0, x) + "\x1b[m" + fit(l, tw) + "\x1b[m" + ansi.Cut(row, x+tw, w)
	}
	return strings.Join(bl, "\n")
}
