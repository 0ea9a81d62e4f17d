package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// cursor is a selection in a scrolling list of n rows, showing height rows at a time.
// Both lists (nodes, findings) use it; only the rows in view are ever rendered.
type listCursor struct {
	pos, offset, height int
}

// move changes the selection by d rows and keeps it in view.
func (c *listCursor) move(d, n int) { c.set(c.pos+d, n) }

func (c *listCursor) set(p, n int) {
	c.pos = max(0, min(p, n-1))
	c.clamp(n)
}

// clamp keeps pos and offset valid for n rows and pos in view.
func (c *listCursor) clamp(n int) {
	h := max(1, c.height)
	c.pos = max(0, min(c.pos, n-1))
	if c.pos < c.offset {
		c.offset = c.pos
	}
	if c.pos >= c.offset+h {
		c.offset = c.pos - h + 1
	}
	c.offset = max(0, min(c.offset, n-h))
}

// window returns the rows in view, as a range [from, to).
func (c listCursor) window(n int) (from, to int) {
	from = max(0, min(c.offset, n))
	return from, min(n, from+max(1, c.height))
}

// nodeList is the left pane: one row per node that passes the filter.
type nodeList struct {
	listCursor
}

// selected returns the selected node, or nil when the list is empty.
func (l nodeList) selected(s *store) *node {
	if l.pos < 0 || l.pos >= len(s.visible) {
		return nil
	}
	return s.nodes[s.visible[l.pos]]
}

// reselect puts the cursor back on the named node after the visible set changed
// (a filter, a node discovered mid-sweep); it keeps the row number when that node is gone.
func (l *nodeList) reselect(s *store, name string) {
	for i, idx := range s.visible {
		if s.nodes[idx].name == name {
			l.set(i, len(s.visible))
			return
		}
	}
	l.clamp(len(s.visible))
}

// view renders the pane: w x h including its frame.
func (l nodeList) view(s *store, st styles, frame string, w, h int, focused bool) string {
	title := fmt.Sprintf("Nodes %d", len(s.nodes))
	if s.query != "" {
		title = fmt.Sprintf("Nodes %d/%d /%s", len(s.visible), len(s.nodes), s.query)
	}
	iw := w - 2
	from, to := l.window(len(s.visible))
	lines := make([]string, 0, to-from+1)
	for i := from; i < to; i++ {
		n := s.nodes[s.visible[i]]
		lines = append(lines, nodeRow(n, osTag(s, n), st, frame, iw, i == l.pos, focused))
	}
	if len(s.visible) == 0 {
		msg := "no nodes"
		if s.query != "" {
			msg = "no match for /" + s.query
		}
		lines = append(lines, st.dim.Render(" "+msg))
	}
	return st.box(title, lines, w, h, focused)
}

// nodeRow is "› ✗ name     2✗ 1!": marker, glyph (or spinner frame), name, note.
func nodeRow(n *node, tag string, st styles, frame string, w int, sel, focused bool) string {
	glyph, plainGlyph := nodeGlyph(n, st, frame)
	note := tag + n.note
	suffix := ""
	if n.via != "" {
		suffix = " [" + n.via + "]"
	}
	nameW := max(1, w-4-ansi.StringWidth(note)-1)
	name := fitName(oneLine(n.label()), nameW-ansi.StringWidth(suffix)) + suffix
	if ansi.StringWidth(name) > nameW {
		name = ansi.Truncate(name, nameW, "…")
	}
	pad := max(1, w-4-ansi.StringWidth(name)-ansi.StringWidth(note))
	marker := " "
	if sel {
		marker = "›"
	}
	if sel {
		row := marker + " " + plainGlyph + " " + name + strings.Repeat(" ", pad) + note
		if focused {
			return st.selected.Render(fit(row, w))
		}
		return st.selBlur.Render(fit(row, w))
	}
	return marker + " " + glyph + " " + name + strings.Repeat(" ", pad) + st.dim.Render(note)
}

// nodeGlyph is the node's status symbol, styled and plain: the spinner frame while its
// sweep runs, · before it is judged, else its worst status.
func nodeGlyph(n *node, st styles, frame string) (styled, plain string) {
	switch {
	case n.state == nodeRunning:
		return frame, ansi.Strip(frame)
	case n.state == nodeQueued || !n.judged:
		return st.pending, "·"
	default:
		return st.glyph(n.worst), n.worst.Glyph()
	}
}

// learnOS reads the kind of a judged node from its os.json (only a Linux worker's sweep
// writes one), so a mixed fleet can show Linux and Windows nodes side by side.
func (m *Model) learnOS(n *node) {
	b, err := m.opts.Backend.Evidence(n.name, "nodes/"+n.name+"/os.json")
	n.os = "windows"
	var os struct{ Kind string }
	if err == nil && json.Unmarshal(b, &os) == nil && os.Kind == "linux" {
		n.os = "linux"
		m.store.mixed = true
	}
}

// osTag is the kind marker a Linux node's row shows before its note ("lnx 1✗") once a
// Linux node was judged; Windows rows, the tool's subject, show none, so names stay
// aligned and a Windows-only fleet looks as before.
func osTag(s *store, n *node) string {
	if s.mixed && n.os == "linux" {
		return "lnx "
	}
	return ""
}

// fitName cuts a node name to w cells. A fleet names a cluster's nodes "scenario.node"
// and a cloud names them by FQDN: the part after the last dot tells two rows apart, so
// it is kept and the middle goes when it leaves room for the front.
func fitName(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	if i := strings.LastIndex(s, "."); i > 0 && w >= 8 {
		if tail := s[i:]; ansi.StringWidth(tail) <= w/2 {
			return ansi.Truncate(s[:i], w-ansi.StringWidth(tail), "…") + tail
		}
	}
	return ansi.Truncate(s, max(w, 1), "…")
}
