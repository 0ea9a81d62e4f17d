package paste

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Line is one line of a paste after the console's and the messenger's residue is gone.
type Line struct {
	Text string // without the prefix, the line end; trailing spaces kept
	No   int    // 1-based line number in the paste
	// Unit is the program a relay's prefix named (journald's "kubelet[26278]: "), which
	// tells whose log the line is.
	Unit string
}

// Lines splits a paste into lines and takes off what surrounds the console's own text:
// CRLF and CR ends, a UTF-8 byte-order mark, Markdown fences, blockquote marks at any
// depth (outside fences: inside one a leading "> " is a prompt), the prefixes a log
// relay puts on every line (a serial console's timestamp and source, journald's
// "Mon DD hh:mm:ss host unit[pid]: ", a CI runner's RFC 3339 stamp) and lines a wide
// console joined into one.
func (p *Parser) Lines(text string) []Line {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	raw := strings.Split(text, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	raw = p.unquote(raw)
	strip := p.relayPrefix(raw)
	out := make([]Line, 0, len(raw))
	for i, l := range raw {
		l, unit := strip(l)
		l = strings.ReplaceAll(l, "\t", "    ")
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			// A fence alone (or with its language) is dropped; one glued to the first
			// line ("```PS C:\>", "```Events:") is cut off.
			// A fence ends a paragraph: the words before it are not the output.
			rest := strings.TrimLeft(t, "`~")
			if strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ- ") == "" {
				out = append(out, Line{No: i + 1})
				continue
			}
			out = append(out, Line{No: i + 1})
			l = rest
		}
		for _, piece := range unjoin(l) {
			out = append(out, Line{Text: piece, No: i + 1, Unit: unit})
		}
	}
	return out
}

// unquote takes Markdown blockquote marks off the lines outside fences: "> ", "> > "
// and ">>" (a mail client's nesting), as deep as the quote around the paste goes: the
// least depth of a run of quoted lines, so a quoted PowerShell continuation prompt
// ("> >>") keeps its ">>". A ">>" line after an unquoted one is that prompt, not a
// quote. Inside a fence a "> " line is the engineer's prompt and stays.
func (p *Parser) unquote(raw []string) []string {
	out := make([]string, len(raw))
	copy(out, raw)
	inFence, fenceQuoted := false, false
	var run []int // quoted lines of the current run
	flush := func() {
		depth := -1
		for _, i := range run {
			if d := quoteDepth(p.quoteMark.FindString(raw[i])); strings.TrimSpace(raw[i][len(p.quoteMark.FindString(raw[i])):]) != "" && (depth < 0 || d < depth) {
				depth = d
			}
		}
		if depth < 0 {
			depth = 1
		}
		for _, i := range run {
			out[i] = stripQuote(raw[i], depth)
		}
		run = run[:0]
	}
	for i, l := range raw {
		q := p.quoteMark.FindString(l)
		rt := strings.TrimSpace(l[len(q):])
		fence := strings.HasPrefix(rt, "```") || strings.HasPrefix(rt, "~~~")
		switch {
		case q == "" || inFence && !fenceQuoted:
			// Unquoted text, or a fence the quote did not open: a "> " in it is a prompt.
			flush()
			if fence {
				inFence, fenceQuoted = !inFence, false
			}
		case strings.HasPrefix(strings.TrimLeft(q, " "), ">>") && len(run) == 0 && !inFence && i > 0 && strings.TrimSpace(raw[i-1]) != "":
			// PowerShell's continuation prompt after a command line.
		default:
			run = append(run, i)
			if fence {
				inFence, fenceQuoted = !inFence, !inFence
			}
		}
	}
	flush()
	return out
}

// quoteDepth counts the ">" of a quote mark.
func quoteDepth(q string) int { return strings.Count(q, ">") }

// stripQuote takes depth quote marks off the front of l.
func stripQuote(l string, depth int) string {
	l = strings.TrimLeft(l, " ")
	for ; depth > 0 && strings.HasPrefix(l, ">"); depth-- {
		l = strings.TrimPrefix(l[1:], " ")
		if depth > 1 {
			l = strings.TrimLeft(l, " ")
		}
	}
	return l
}

// relayPrefix says how to take a log relay's prefix off a line. A serial console's
// (GCE's metadata script runner, Azure's boot diagnostics) and a CI runner's timestamp
// go when most lines carry one, journald's wherever it is: its shape is its own.
func (p *Parser) relayPrefix(raw []string) func(string) (string, string) {
	serial, stamped, nonEmpty := 0, 0, 0
	for _, l := range raw {
		if strings.TrimSpace(l) == "" {
			continue
		}
		nonEmpty++
		if p.serialPrefix.MatchString(l) {
			serial++
		}
		if p.runnerStamp.MatchString(l) {
			stamped++
		}
	}
	stripSerial := serial > 0 && serial*2 >= nonEmpty
	stripStamp := !stripSerial && stamped > 0 && stamped*2 >= nonEmpty
	// A second source name ("windows-startup-script-ps1: ") goes too when every prefixed
	// line has the same one; otherwise it is the output's own ("SERVICE_NAME: kubelet").
	source := ""
	if stripSerial {
		first := true
		for _, l := range raw {
			if !p.serialPrefix.MatchString(l) {
				continue
			}
			src := p.serialSource.FindString(p.serialPrefix.ReplaceAllString(l, ""))
			if first {
				source, first = strings.TrimRight(src, " "), false
			}
			if strings.TrimRight(src, " ") != source {
				source = ""
				break
			}
		}
	}
	return func(l string) (string, string) {
		switch {
		case stripSerial && p.serialPrefix.MatchString(l):
			l = p.serialPrefix.ReplaceAllString(l, "")
			if source != "" && strings.HasPrefix(l, source) {
				l = strings.TrimPrefix(strings.TrimPrefix(l, source), " ")
			}
		case stripStamp && p.runnerStamp.MatchString(l):
			l = p.runnerStamp.ReplaceAllString(l, "")
		}
		if m := p.journald.FindStringSubmatch(l); m != nil {
			return l[len(m[0]):], m[1]
		}
		return l, ""
	}
}

// unjoin splits a line a wide console joined: a copy from a console buffer wider than
// the window gives each row padded with spaces to the buffer's width, one after another
// on one line (kubernetes/kubernetes#78582: describe's Conditions at 240 columns). The
// width is the smallest one at which every piece after the first starts where a row
// would (at most four spaces in) and every piece before it ends in padding.
func unjoin(l string) []string {
	const minWidth, minPad = 120, 8
	// A console buffer pads every row to its width, so some row ends far from it.
	if len(l) < 3*minWidth || !strings.Contains(l, strings.Repeat(" ", 20)) || !isASCII(l) {
		return []string{l}
	}
	// Three pieces at least (cutAt), so the line is three console widths long: no
	// table row is.
	for w := minWidth; w <= len(l)/3; w++ {
		if pieces, ok := cutAt(l, w, minPad); ok {
			return pieces
		}
	}
	return []string{l}
}

func cutAt(l string, w, minPad int) ([]string, bool) {
	var pieces []string
	padded := 0
	for start := 0; start < len(l); start += w {
		end := min(start+w, len(l))
		piece := l[start:end]
		if start > 0 {
			if in := leading(piece); in > 4 || in == len(piece) {
				return nil, false
			}
			if l[start-1] != ' ' {
				return nil, false
			}
		}
		if end < len(l) && strings.HasSuffix(piece, strings.Repeat(" ", minPad)) {
			padded++
		}
		pieces = append(pieces, strings.TrimRight(piece, " "))
	}
	// Three rows at least, most of them padded: one wide table row with a long gap in
	// it (kubectl get nodes -o wide at 200 columns) is not rows.
	return pieces, len(pieces) >= 3 && padded*2 >= len(pieces)-1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Cells is the width of s on a console: East Asian wide and full-width characters take
// two cells (a Chinese extension name wraps sooner than its rune count says).
func Cells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// firstRuneCells is the width of the first character of s (0 when s is empty).
func firstRuneCells(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return 0
	}
	return runeCells(r)
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func leading(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
