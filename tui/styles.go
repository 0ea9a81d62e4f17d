package tui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// styles is every style the screen uses, built once per background (dark or light) and
// colour setting. With noColor no style sets a colour: meaning is carried by glyphs,
// markers (›) and text decoration (bold, reverse), never by colour alone.
type styles struct {
	noColor bool

	title    lipgloss.Style // app name, pane titles of the focused pane
	bold     lipgloss.Style
	dim      lipgloss.Style // secondary text, unfocused titles
	selected lipgloss.Style // selected row in the focused pane
	selBlur  lipgloss.Style // selected row elsewhere
	status   [probes.Error + 1]lipgloss.Style
	border   lipgloss.Style
	focus    lipgloss.Style // border of the focused pane
	warn     lipgloss.Style // "DISRUPTIVE" banners
	errText  lipgloss.Style
	okText   lipgloss.Style

	glyphs  [probes.Error + 1]string // status glyphs, rendered once (View runs per message)
	pending string                   // the pending glyph, rendered

	help  help.Styles
	input textinput.Styles
	bar   [2]color.Color // progress bar: full, empty
}

func newStyles(dark, noColor bool) styles {
	s := styles{noColor: noColor}
	plain := lipgloss.NewStyle()
	s.bold = plain.Bold(true)
	s.title = plain.Bold(true)
	s.dim = plain.Faint(true)
	s.selected = plain.Reverse(true)
	s.selBlur = plain.Bold(true)
	s.warn = plain.Bold(true)
	s.errText = plain
	s.okText = plain
	s.border, s.focus = plain, plain
	for i := range s.status {
		s.status[i] = plain
	}
	s.status[probes.Fail] = plain.Bold(true)
	s.status[probes.Error] = plain.Bold(true)
	s.help = help.Styles{}
	s.input = plainInputStyles()
	s.bar = [2]color.Color{lipgloss.NoColor{}, lipgloss.NoColor{}}
	if noColor {
		return s.prerender()
	}

	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	red, yellow, green := c("#c00000", "#ff6b6b"), c("#9a6700", "#f5c542"), c("#1a7f37", "#5fd787")
	magenta, grey, accent := c("#a0009a", "#ff79f0"), c("#6e6e6e", "#8a8a8a"), c("#0550ae", "#79b8ff")

	s.title = s.title.Foreground(accent)
	s.dim = plain.Foreground(grey)
	s.selected = plain.Reverse(true).Bold(true)
	s.status[probes.Pass] = plain.Foreground(green)
	s.status[probes.Skip] = plain.Foreground(grey)
	s.status[probes.Warn] = plain.Foreground(yellow)
	s.status[probes.Fail] = plain.Foreground(red).Bold(true)
	s.status[probes.Error] = plain.Foreground(magenta).Bold(true)
	s.border = plain.Foreground(grey)
	s.focus = plain.Foreground(accent)
	s.warn = plain.Foreground(red).Bold(true)
	s.errText = plain.Foreground(red)
	s.okText = plain.Foreground(green)
	s.help = help.DefaultStyles(dark)
	s.input = textinput.DefaultStyles(dark)
	s.input.Cursor.Blink = false // no timer messages for a blinking cursor
	s.bar = [2]color.Color{accent, grey}
	return s.prerender()
}

func (s styles) prerender() styles {
	for i := range s.glyphs {
		s.glyphs[i] = s.status[i].Render(probes.Status(i).Glyph())
	}
	s.pending = s.dim.Render("·")
	return s
}

// plainInputStyles is a text input without colour (the cursor is reverse video).
func plainInputStyles() textinput.Styles {
	var st textinput.Styles
	p := lipgloss.NewStyle()
	st.Focused = textinput.StyleState{Text: p, Placeholder: p.Faint(true), Suggestion: p.Faint(true), Prompt: p}
	st.Blurred = st.Focused
	st.Cursor = textinput.CursorStyle{Color: lipgloss.NoColor{}, Blink: false}
	return st
}

// glyph renders a status glyph in its colour.
func (s styles) glyph(st probes.Status) string {
	if st < probes.Pass || st > probes.Error {
		st = probes.Error
	}
	return s.glyphs[st]
}

// box frames lines in a w x h border with the title in the top edge. Lines are cut or
// padded to the inner width, and the box is cut or padded to the inner height. The
// focused pane gets a heavy frame, so focus shows without colour.
func (s styles) box(title string, lines []string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return ""
	}
	fr, bs, ts := [6]string{"╭", "─", "╮", "│", "╰", "╯"}, s.border, s.dim
	if focused {
		fr, bs, ts = [6]string{"┏", "━", "┓", "┃", "┗", "┛"}, s.focus, s.title
	}
	iw, ih := w-2, h-2
	var b strings.Builder
	b.Grow(w * h * 3)
	title = ansi.Truncate(title, max(0, iw-3), "…")
	tw := ansi.StringWidth(title)
	b.WriteString(bs.Render(fr[0] + fr[1]))
	if tw > 0 {
		b.WriteString(" " + ts.Render(title) + " ")
		tw += 2
	}
	b.WriteString(bs.Render(strings.Repeat(fr[1], max(0, iw-1-tw)) + fr[2]))
	side := bs.Render(fr[3])
	for i := range ih {
		b.WriteByte('\n')
		b.WriteString(side)
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(fit(line, iw))
		b.WriteString(side)
	}
	b.WriteByte('\n')
	b.WriteString(bs.Render(fr[4] + strings.Repeat(fr[1], iw) + fr[5]))
	return b.String()
}

// fit cuts s to width w (with an ellipsis) and pads it with spaces to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// clean makes text from a node safe to print: escape sequences and control
// characters are removed (a node's output must not drive the user's terminal), tabs
// become spaces. Newlines are kept.
func clean(s string) string {
	if isPlain(s) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// dropped: \r, bells, C1 controls
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f || c == 0xc2 { // 0xc2 starts U+0080..U+00BF
			return false
		}
	}
	return true
}

// oneLine is clean text squashed onto one line, for rows.
func oneLine(s string) string {
	s = clean(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}
