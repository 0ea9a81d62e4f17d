package tui

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// view renders the dialog box for a w x h screen.
func (d *fixDialog) view(m Model, w, h int) string {
	st := m.st
	bw := min(w-4, 84)
	iw := bw - 4
	f, fx := d.finding, d.fix()
	var lines []string
	add := func(ls ...string) { lines = append(lines, ls...) }
	add(wrap(st.glyph(f.Status)+" "+st.bold.Render(f.Probe)+st.dim.Render(" on "+oneLine(report.NodeLabel(f.Node))), iw, "  ")...)
	add(wrap(st.title.Render("Fix: ")+oneLine(fx.Title), iw, "  ")...)
	if fx.Disruptive {
		add(wrap(st.warn.Render("⚠ DISRUPTIVE: ")+clean(orDefault(fx.Impact, "this fix disrupts the node")), iw, "  ")...)
	}
	add("")
	switch d.step {
	case stepChoose:
		add("Choose one:")
		for i, c := range d.choices {
			marker := "  "
			if i == d.choice {
				marker = "› "
			}
			line := fmt.Sprintf("%s%d. %s [%s]", marker, i+1, oneLine(c.Title), c.Kind)
			if c.Disruptive {
				line += " (disruptive)"
			}
			if i == d.choice {
				line = st.selected.Render(line)
			}
			add(wrap(line, iw, "     ")...)
		}
	case stepPreview:
		add(m.spin.View() + " preparing the preview…")
	case stepConfirm:
		room := max(3, h-14-len(lines))
		from := min(d.scroll, max(0, len(d.preview)-1))
		to := min(len(d.preview), from+room)
		for _, l := range d.preview[from:to] {
			add(wrap(l, iw, "  ")...)
		}
		if to < len(d.preview) {
			add(st.dim.Render(fmt.Sprintf("… %d more lines (j scrolls)", len(d.preview)-to)))
		}
		add("")
		if fx.Disruptive {
			add(wrap(st.warn.Render("This fix is disruptive.")+" Apply it? y/enter, then type the node name to confirm · n/esc cancels", iw, "")...)
		} else {
			add(st.bold.Render("Apply this fix?") + " y/enter apply · n/esc cancel")
		}
	case stepTypeName:
		q := strings.TrimSuffix(strings.TrimSpace(clean(d.confirmation().Question())), ":")
		add(wrap(st.warn.Render(q)+"; enter applies, esc cancels.", iw, "")...)
		add(d.input.View())
		if d.hint != "" {
			add(st.errText.Render(d.hint))
		}
	case stepRunning:
		add(m.spin.View() + " applying… (esc cancels)")
		add(tail(d.log, max(3, h-12-len(lines)))...)
	case stepResult:
		style := st.okText
		if d.failed {
			style = st.errText
		}
		add(wrap(style.Render(d.outcome), iw, "  ")...)
		if r := d.result; r != nil && !r.OK() {
			for _, dt := range r.After.Details {
				add(wrap("  "+clean(dt), iw, "    ")...)
			}
		}
		if len(d.log) > 0 {
			add("", st.dim.Render("output:"))
			add(tail(d.log, max(3, h-14-len(lines)))...)
		}
	}
	if len(lines) > h-4 {
		lines = lines[:max(1, h-4)]
	}
	return st.box("Fix", pad(lines), bw, len(lines)+2, true)
}

// pad indents lines by one column inside a box.
func pad(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = " " + l
	}
	return out
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
