package paste

import "strings"

// unwrapRows undoes a terminal's hard wrap of a CLI table (kubectl, docker, crictl,
// ctr). The CLIs do not wrap: the terminal does, cutting every line at its width and going on at column 0, so the
// header and the rows arrive in pieces (acs-engine's docs show CONTAINER-RUNTIME on
// a line of its own). A header continues while the next line is header words too; a
// row continues until it reaches the last column, which these CLIs always fill
// (kubectl's <none>, ctr's "-"). cut says whether the header was in pieces. A piece shorter than the widest line lost its trailing spaces
// in the copy, so it is padded back to that width before the next piece is added.
func (p *Parser) unwrapRows(lines []Line) ([]Line, bool) {
	width, trimmed := 0, 0
	for _, l := range lines {
		width, trimmed = max(width, Cells(l.Text)), max(trimmed, Cells(strings.TrimRight(l.Text, " ")))
	}
	if width == trimmed {
		// The copy dropped every trailing space: the widest piece may end short of the
		// terminal's edge, so the width is the next usual one.
		width = terminalWidth(trimmed)
	}
	// pad gives a piece back the trailing spaces the copy dropped.
	pad := func(s string) string {
		s = strings.TrimRight(s, " ")
		return s + strings.Repeat(" ", max(0, width-Cells(s)))
	}
	var out []Line
	i := 0
	for i < len(lines) && blank(lines[i].Text) {
		out = append(out, lines[i])
		i++
	}
	if i == len(lines) || !headerPiece(lines[i].Text) {
		return lines, false
	}
	head, cut := lines[i], false
	for piece := head.Text; i+1 < len(lines) && headerPiece(lines[i+1].Text); i++ {
		head.Text = strings.TrimSuffix(head.Text, piece) + pad(piece) + lines[i+1].Text
		piece, cut = lines[i+1].Text, true
	}
	head.Text = strings.TrimRight(head.Text, " ")
	if !upperHeader(head.Text) {
		return lines, false
	}
	out = append(out, head)
	cols := p.colRun.FindAllStringIndex(head.Text, -1)
	if len(cols) < 2 {
		return lines, false
	}
	last := Cells(head.Text[:cols[len(cols)-1][0]])
	// The terminal cut lines if it cut the header or a row short of its last column;
	// then a row piece as wide as the terminal was cut too (inside its last cell).
	wrapped := cut
	for _, l := range lines[i+1:] {
		wrapped = wrapped || !blank(l.Text) && Cells(strings.TrimRight(l.Text, " ")) <= last
	}
	for i++; i < len(lines); i++ {
		row := lines[i]
		if blank(row.Text) {
			out = append(out, row)
			continue
		}
		for piece := row.Text; i+1 < len(lines) && !blank(lines[i+1].Text); i++ {
			if Cells(strings.TrimRight(row.Text, " ")) > last && !(wrapped && Cells(strings.TrimRight(piece, " ")) >= width) {
				break
			}
			row.Text = strings.TrimSuffix(row.Text, piece) + pad(piece) + lines[i+1].Text
			piece = lines[i+1].Text
		}
		out = append(out, row)
	}
	return out, cut
}

// TerminalWrap cuts every line of text at width cells, the way a terminal shows output
// wider than its window (and copies it back), optionally dropping the trailing spaces
// a terminal copy loses. It renders pastes for tests and examples.
func TerminalWrap(text string, width int, stripTrailing bool) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		for _, piece := range cutCells(l, width) {
			if stripTrailing {
				piece = strings.TrimRight(piece, " ")
			}
			b.WriteString(piece + "\n")
		}
	}
	return b.String()
}

// unwrapCut joins the lines a terminal cut at its width back onto the line they
// continue (describe output, whose lines kubectl does not wrap). The width shows as
// several lines exactly as wide as the widest: one such line is just the longest line
// of an output the terminal did not cut. A piece is not a line of its own ("Key: value",
// a line indented by two or more).
func unwrapCut(lines []Line) []Line {
	width, atWidth := 0, 0
	for _, l := range lines {
		switch c := Cells(l.Text); {
		case c > width:
			width, atWidth = c, 1
		case c == width:
			atWidth++
		}
	}
	if atWidth < 2 || width < 40 {
		return lines
	}
	out := make([]Line, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for Cells(lines[i].Text) == width && i+1 < len(lines) && cutPiece(lines[i+1].Text) {
			i++
			l.Text += lines[i].Text
		}
		out = append(out, l)
	}
	return out
}

func cutPiece(s string) bool {
	switch {
	case blank(s) || strings.HasPrefix(s, "  "):
		// describe indents by two: an indented line is a line of its own.
		return false
	case s[0] == ' ':
		return true // cut just before a space
	}
	key, _, ok := strings.Cut(s, ":")
	return !ok || strings.ContainsAny(key, "\"'{}()[]/=,;.") || key == "" || key[0] < 'A' || key[0] > 'Z'
}

// headerPiece: a piece of a header the terminal cut is capitals (and the dashes,
// digits and spaces between them), however short ("E" of RUNTIME).
func headerPiece(s string) bool {
	if blank(s) {
		return false
	}
	letters := 0
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			return false
		case r >= 'A' && r <= 'Z':
			letters++
		}
	}
	return letters > 0
}

// terminalWidth is the narrowest usual console width that holds n cells (n when none).
func terminalWidth(n int) int {
	for _, w := range [...]int{80, 100, 120, 132, 140, 160, 180, 200, 220, 240} {
		if n <= w {
			return w
		}
	}
	return n
}
