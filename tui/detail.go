package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/viewport"
	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// detailPane shows everything about the selected finding: the summary, the details
// (expected vs actual), the evidence paths and the fix. Its content is rebuilt when the
// selection, the node or the width changes, never in View; the viewport scrolls it.
type detailPane struct {
	vp    viewport.Model
	title string
}

func newDetail() detailPane {
	vp := viewport.New()
	vp.FillHeight = true
	return detailPane{vp: vp}
}

// setSize sets the inner size (without the frame); one column is a left margin.
func (d *detailPane) setSize(w, h int) {
	d.vp.SetWidth(max(1, w-1))
	d.vp.SetHeight(max(1, h))
}

// show rebuilds the content for the selected node and finding; top scrolls back up.
func (d *detailPane) show(n *node, f probes.Finding, ok bool, st styles, top bool) {
	w := max(10, d.vp.Width())
	var lines []string
	switch {
	case n == nil:
		d.title = "Detail"
		lines = []string{st.dim.Render("no node selected")}
	case !ok:
		d.title = "Detail · " + oneLine(n.label())
		lines = nodeLines(n, st, w)
	default:
		d.title = "Detail · " + f.Probe
		lines = findingLines(n, f, st, w)
	}
	d.vp.SetContentLines(lines)
	if top {
		d.vp.GotoTop()
	}
}

func (d detailPane) view(st styles, w, h int, focused bool) string {
	title := d.title
	if !d.vp.AtTop() {
		title += " ↑"
	}
	if !d.vp.AtBottom() {
		title += " ↓"
	}
	return st.box(title, pad(strings.Split(d.vp.View(), "\n")), w, h, focused)
}

// nodeLines describe a node with no finding selected.
func nodeLines(n *node, st styles, w int) []string {
	var out []string
	out = append(out, st.bold.Render(oneLine(n.label()))+"  "+st.dim.Render(n.note))
	if n.err != "" {
		out = append(out, "")
		out = append(out, wrap(st.errText.Render("collection failed: ")+clean(n.err), w, "  ")...)
	}
	out = append(out, "", st.dim.Render(emptyFindings(n)))
	return out
}

// findingLines lay a finding out for reading, wrapped to w.
func findingLines(n *node, f probes.Finding, st styles, w int) []string {
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	head := st.glyph(f.Status) + " " + st.status[statusIndex(f.Status)].Render(strings.ToUpper(f.Status.String())) +
		"  " + st.bold.Render(f.Probe) + st.dim.Render(" · "+oneLine(n.label()))
	add(head)
	add(wrap(clean(f.Summary), w, "")...)
	if i := slices.IndexFunc(n.findings, func(g probes.Finding) bool { return g.Ref() == f.Ref() }); i >= 0 && i < len(n.causes) {
		if cs := n.causes[i]; len(cs) > 0 {
			add("", st.title.Render("Caused by"))
			add(wrap("  "+clean(refNames(cs))+": fixing that should clear this too", w, "    ")...)
		} else if cl := n.clears[i]; len(cl) > 0 {
			add("", st.title.Render("Root cause"))
			add(wrap("  fixing this should also clear: "+clean(refNames(cl)), w, "    ")...)
		}
	}
	if len(f.Details) > 0 {
		add("", st.title.Render("Why"))
		for _, d := range f.Details {
			add(wrap("  "+clean(d), w, "    ")...)
		}
	}
	if f.Fix != nil {
		add("")
		add(fixLines(f.Fix, st, w, "", "Fix")...)
	}
	if len(f.Evidence) > 0 {
		add("", st.title.Render("Evidence")+st.dim.Render("  (e opens the first)"))
		for _, e := range f.Evidence {
			add(wrap("  "+clean(e), w, "    ")...)
		}
	}
	return out
}

// fixLines render a fix: title, kind, disruptive flag and impact, precondition,
// the exact commands, what verifies it, notes, then its choices.
func fixLines(fx *probes.Fix, st styles, w int, indent, label string) []string {
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	kind := strings.TrimSpace(string(fx.Kind) + " " + string(fx.Action))
	add(wrap(indent+st.title.Render(label)+" "+st.bold.Render(oneLine(fx.Title))+"  "+st.dim.Render("["+kind+"]"), w, indent+"  ")...)
	in := indent + "  "
	if fx.Disruptive {
		impact := fx.Impact
		if strings.TrimSpace(impact) == "" {
			impact = "yes"
		}
		add(wrap(in+st.warn.Render("⚠ disruptive:")+" "+clean(impact), w, in+"  ")...)
	} else if fx.Impact != "" {
		add(wrap(in+"impact: "+clean(fx.Impact), w, in+"  ")...)
	}
	if fx.Kind == probes.Manual {
		add(wrap(in+st.dim.Render("manual: the tool never runs this; carry it out yourself"), w, in+"  ")...)
	}
	if fx.Precheck != "" {
		add(wrap(in+"precondition: "+clean(fx.Precheck), w, in+"  ")...)
	}
	for _, c := range fx.Commands {
		add(wrap(in+"$ "+clean(c), w, in+"  ")...)
	}
	if fx.Verify != "" {
		add(wrap(in+st.dim.Render("verify: re-runs "+fx.Verify), w, in+"  ")...)
	}
	for _, nt := range fx.Notes {
		add(wrap(in+"note: "+clean(nt), w, in+"  ")...)
	}
	for i, c := range fx.Choices {
		if c != nil {
			add(fixLines(c, st, w, in, fmt.Sprintf("%d.", i+1))...)
		}
	}
	return out
}

func statusIndex(s probes.Status) probes.Status {
	if s < probes.Pass || s > probes.Error {
		return probes.Error
	}
	return s
}

// wrap word-wraps s (which may hold newlines) to width w, continuing lines with cont.
func wrap(s string, w int, cont string) []string {
	var out []string
	cw := ansi.StringWidth(cont)
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			para = cont + para
		}
		if ansi.StringWidth(para) <= w {
			out = append(out, para)
			continue
		}
		first := ansi.Wrap(para, w, "")
		lines := strings.Split(first, "\n")
		out = append(out, lines[0])
		if len(lines) > 1 {
			rest := strings.Join(lines[1:], " ")
			for _, l := range strings.Split(ansi.Wrap(rest, max(1, w-cw), ""), "\n") {
				out = append(out, cont+l)
			}
		}
	}
	return out
}

// refNames lists findings of one node by probe ID.
func refNames(rs []probes.Ref) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Probe
	}
	return strings.Join(names, ", ")
}
