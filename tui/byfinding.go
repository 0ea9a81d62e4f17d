package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// byFinding is the fleet grouped by finding (key b): on the left one row per probe and
// status across the nodes ("✗ NET-ROUTES  7 nodes"), on the right the nodes of the
// selected group, each with what sets it apart from the others, and below them the
// detail of the selected node's finding. It owns both lists, their sizes and views; the
// root model only routes keys to it and asks it what is selected, so r, f, e and y act
// on the node and finding shown.
type byFinding struct {
	groups  listCursor
	members listCursor
	data    []report.FindingGroup
}

// load regroups the findings the filter shows, keeping the selection on the group of
// probe at status and on node when they are still there (a sweep or a fix changed the
// findings), else on the same rows.
func (b *byFinding) load(s *store, probe string, status probes.Status, node string) {
	var shown []probes.Finding
	for _, i := range s.visible {
		n := s.nodes[i]
		for _, j := range s.findingsOf(n) {
			shown = append(shown, n.findings[j])
		}
	}
	b.data = report.GroupByFinding(shown)
	b.groups.clamp(len(b.data))
	// The group of that probe and status holding node: a probe may fail as a root cause
	// on some nodes and as a consequence on others, two groups.
	best := -1
	for i, g := range b.data {
		if g.Probe != probe || g.Status != status {
			continue
		}
		if best < 0 || slices.ContainsFunc(g.Members, func(f probes.Finding) bool { return f.Node == node }) {
			best = i
		}
	}
	if best >= 0 {
		b.groups.set(best, len(b.data))
	}
	b.members.clamp(len(b.memberList()))
	for i, f := range b.memberList() {
		if f.Node == node {
			b.members.set(i, len(b.memberList()))
			break
		}
	}
}

// setSize gives the lists their heights (inside the frames).
func (b *byFinding) setSize(groupsH, membersH int) {
	b.groups.height, b.members.height = groupsH, max(1, membersH-1) // one line is the shared summary
	b.groups.clamp(len(b.data))
	b.members.clamp(len(b.memberList()))
}

func (b byFinding) group() (report.FindingGroup, bool) {
	if b.groups.pos < 0 || b.groups.pos >= len(b.data) {
		return report.FindingGroup{}, false
	}
	return b.data[b.groups.pos], true
}

func (b byFinding) memberList() []probes.Finding {
	g, _ := b.group()
	return g.Members
}

// selected is the node and finding the detail pane shows.
func (b byFinding) selected(s *store) (*node, probes.Finding, bool) {
	ms := b.memberList()
	if b.members.pos < 0 || b.members.pos >= len(ms) {
		return nil, probes.Finding{}, false
	}
	f := ms[b.members.pos]
	i, ok := s.byName[f.Node]
	if !ok {
		return nil, probes.Finding{}, false
	}
	return s.nodes[i], f, true
}

// move moves the focused list by d rows; it reports whether the selection changed.
// Another group starts on its first node.
func (b *byFinding) move(focus focus, d int) bool {
	switch focus {
	case focusNodes:
		before := b.groups.pos
		b.groups.move(d, len(b.data))
		if b.groups.pos != before {
			b.members.pos, b.members.offset = 0, 0
			return true
		}
	case focusFindings:
		before := b.members.pos
		b.members.move(d, len(b.memberList()))
		return b.members.pos != before
	}
	return false
}

// viewGroups renders the left pane: w x h including its frame.
func (b byFinding) viewGroups(s *store, st styles, w, h int, focused bool) string {
	title := fmt.Sprintf("By finding %d", len(b.data))
	if s.query != "" {
		title += " /" + s.query
	}
	iw := w - 2
	from, to := b.groups.window(len(b.data))
	var lines []string
	for i := from; i < to; i++ {
		g := b.data[i]
		label := g.Probe
		if g.Consequence {
			label = "└ " + label
		}
		// The probe is what the row is about: a narrow pane shortens the note first.
		room := iw - 5 - ansi.StringWidth(label)
		note := fmt.Sprintf("%d nodes", len(g.Members))
		if len(g.Members) == 1 {
			note = report.NodeLabel(g.Members[0].Node)
		}
		if ansi.StringWidth(note) > room {
			note = fmt.Sprintf("×%d", len(g.Members))
		}
		lines = append(lines, listRow(st, g.Status, label, note, iw, i == b.groups.pos, focused))
	}
	if len(b.data) == 0 {
		msg := "no findings yet"
		if s.query != "" {
			msg = "no match for /" + s.query
		}
		lines = append(lines, st.dim.Render(" "+msg))
	}
	return st.box(title, lines, w, h, focused)
}

// viewMembers renders the nodes of the selected group, each with its differences (or,
// dimmed, the summary it shares): w x h including its frame.
func (b byFinding) viewMembers(st styles, w, h int, focused bool) string {
	g, ok := b.group()
	if !ok {
		return st.box("Nodes", nil, w, h, focused)
	}
	title := fmt.Sprintf("%s %s · %s", g.Probe, g.Status, g.Nodes())
	if g.Consequence {
		title = fmt.Sprintf("%s %s, a consequence · %s", g.Probe, g.Status, g.Nodes())
	}
	iw := w - 2
	nameW := 0
	for _, f := range g.Members {
		nameW = max(nameW, ansi.StringWidth(report.NodeLabel(f.Node)))
	}
	nameW = min(nameW, max(8, iw/3))
	from, to := b.members.window(len(g.Members))
	// The summary the nodes share heads the list; each row says what is its own.
	var lines []string
	if len(g.Members) > 1 {
		lines = append(lines, st.dim.Render(ansi.Truncate("  "+oneLine(g.Summary), iw, "…")))
	}
	for i := from; i < to; i++ {
		f := g.Members[i]
		name := fit(oneLine(report.NodeLabel(f.Node)), nameW)
		name += strings.Repeat(" ", max(0, nameW-ansi.StringWidth(name)))
		text, own := oneLine(g.Summary), false
		if d, ok := g.Differ[f.Node]; ok {
			text, own = oneLine(strings.Join(d, "; ")), true
		}
		text = ansi.Truncate(text, max(1, iw-nameW-6), "…")
		sel := i == b.members.pos
		switch {
		case sel && focused:
			lines = append(lines, st.selected.Render(fit("› "+f.Status.Glyph()+" "+name+"  "+text, iw)))
		case sel:
			lines = append(lines, st.selBlur.Render(fit("› "+f.Status.Glyph()+" "+name+"  "+text, iw)))
		case own:
			lines = append(lines, "  "+st.glyph(f.Status)+" "+name+"  "+text)
		default:
			lines = append(lines, "  "+st.glyph(f.Status)+" "+name+"  "+st.dim.Render(text))
		}
	}
	return st.box(title, lines, w, h, focused)
}

// listRow is "› ✗ label      note", as the node list draws its rows.
func listRow(st styles, status probes.Status, label, note string, w int, sel, focused bool) string {
	label = oneLine(label)
	labelW := max(1, w-4-ansi.StringWidth(note)-1)
	if ansi.StringWidth(label) > labelW {
		label = ansi.Truncate(label, labelW, "…")
	}
	gap := strings.Repeat(" ", max(1, w-4-ansi.StringWidth(label)-ansi.StringWidth(note)))
	if sel {
		row := "› " + status.Glyph() + " " + label + gap + note
		if focused {
			return st.selected.Render(fit(row, w))
		}
		return st.selBlur.Render(fit(row, w))
	}
	return "  " + st.glyph(status) + " " + label + gap + st.dim.Render(note)
}
