package paste

import (
	"strings"
)

// Wrap says how FormatList breaks long values, imitating the consoles customers paste
// from.
type Wrap int

const (
	// WordWrap is PowerShell's own wrapping: break at a space (dropping it), cut a word
	// longer than the line at the line's end, indent continuations to the value column.
	WordWrap Wrap = iota
	// LostIndent is WordWrap with the continuation indentation lost in the paste.
	LostIndent
	// ConsoleCut is a console narrower than PowerShell's width: lines are cut every
	// width cells, anywhere, and continue at column 0.
	ConsoleCut
)

// FormatList prints records the way Format-List does at a console of width cells
// (0: no wrapping), each record preceded by a blank line, with indent spaces added in
// front of every line (a paste that gained indentation). It renders evidence as a
// customer would paste it, for tests and examples.
func FormatList(recs []Record, width int, wrap Wrap, indent int) string {
	var b strings.Builder
	pad := strings.Repeat(" ", indent)
	for _, r := range recs {
		b.WriteString("\n")
		keyw := 0
		for _, f := range r.Fields {
			keyw = max(keyw, len(f.Name))
		}
		for _, f := range r.Fields {
			head := f.Name + strings.Repeat(" ", keyw-len(f.Name)) + " :"
			val := f.Value.String()
			if val != "" {
				head += " "
			}
			var lines []string
			switch {
			case width <= 0:
				lines = []string{head + val}
			case wrap == ConsoleCut:
				lines = cutCells(pad+head+val, width)
				for i := range lines {
					b.WriteString(lines[i] + "\n")
				}
				continue
			default:
				col := indent + len(head)
				for i, l := range wordWrap(val, width-col) {
					if i == 0 {
						lines = append(lines, head+l)
					} else if wrap == LostIndent {
						lines = append(lines, l)
					} else {
						lines = append(lines, strings.Repeat(" ", len(head))+l)
					}
				}
			}
			for i, l := range lines {
				if i > 0 && wrap == LostIndent {
					b.WriteString(l + "\n")
					continue
				}
				b.WriteString(pad + l + "\n")
			}
		}
	}
	return b.String()
}

// wordWrap breaks s into lines of at most avail cells the way PowerShell's list view
// does.
func wordWrap(s string, avail int) []string {
	if avail < 2 || Cells(s) <= avail {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	left := avail
	newline := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		left = avail
	}
	for i, w := range strings.Split(s, " ") {
		need := Cells(w)
		if i > 0 && cur.Len() > 0 {
			need++
		}
		switch {
		case need <= left:
			if i > 0 && cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			cur.WriteString(w)
			left -= need
		case Cells(w) > avail:
			// Longer than a line: it starts where the line is and is cut at its end.
			if cur.Len() > 0 {
				if left >= 2 {
					cur.WriteByte(' ')
					left--
				} else {
					newline()
				}
			}
			for _, r := range w {
				c := runeCells(r)
				if c > left {
					newline()
				}
				cur.WriteRune(r)
				left -= c
			}
		default:
			newline()
			cur.WriteString(w)
			left -= Cells(w)
		}
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// cutCells cuts s every width cells; a wide character that does not fit moves on.
func cutCells(s string, width int) []string {
	var out []string
	var cur strings.Builder
	n := 0
	for _, r := range s {
		c := runeCells(r)
		if n+c > width {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		cur.WriteRune(r)
		n += c
	}
	return append(out, cur.String())
}
