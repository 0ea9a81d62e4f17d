package paste

import "strings"

// Table is a parsed fixed-width table: PowerShell's Format-Table (a header, a line of
// dashes under each column) or a CLI's (docker, kubectl, crictl, ctr: a header whose
// columns are two or more spaces apart, the rows aligned under it).
type Table struct {
	Columns []string
	Rows    []Row
	// Leftover are the lines before the header and those that do not fit the columns.
	Leftover []Line
}

// Row is one table row, its cells in column order.
type Row struct {
	Cells []string
	Line  int
}

// Get returns the cell of the named column (case-insensitive), "" when there is none.
func (t Table) Get(r Row, col string) string {
	for i, c := range t.Columns {
		if strings.EqualFold(c, col) && i < len(r.Cells) {
			return r.Cells[i]
		}
	}
	return ""
}

// Has reports whether the table has all the named columns.
func (t Table) Has(cols ...string) bool {
	for _, want := range cols {
		found := false
		for _, c := range t.Columns {
			found = found || strings.EqualFold(c, want)
		}
		if !found {
			return false
		}
	}
	return true
}

// Truncated reports whether Format-Table cut a cell ("kube-prox...", "kube-prox…").
func Truncated(cell string) bool {
	return strings.HasSuffix(cell, "...") || strings.HasSuffix(cell, "…")
}

// ParseTable finds the first table in lines and reads its rows until a blank line (a
// Format-Table) or the end. A header line is one whose next line is dashes, or the first
// line whose words are upper-case column names two or more spaces apart.
func (p *Parser) ParseTable(lines []Line) (Table, bool) {
	for i := 0; i < len(lines); i++ {
		head := strings.TrimRight(lines[i].Text, " ")
		if blank(head) {
			continue
		}
		if i+1 < len(lines) && p.dashes.MatchString(lines[i+1].Text) && strings.Contains(lines[i+1].Text, "-") {
			t := Table{Leftover: append([]Line(nil), lines[:i]...)}
			starts := p.columnsFromDashes(lines[i+1].Text)
			t.Columns = cells(head, starts)
			t.readRows(lines[i+2:], starts, true)
			return t, len(t.Columns) > 0
		}
		if cols := p.colRun.FindAllStringIndex(head, -1); len(cols) >= 2 && upperHeader(head) {
			t := Table{Leftover: append([]Line(nil), lines[:i]...)}
			starts := make([]int, len(cols))
			for j, c := range cols {
				starts[j] = c[0]
				t.Columns = append(t.Columns, head[c[0]:c[1]])
			}
			t.readRows(lines[i+1:], starts, false)
			return t, true
		}
	}
	return Table{Leftover: lines}, false
}

// upperHeader: CLI tables name their columns in capitals (NAME, IMAGE ID, OS-IMAGE).
func upperHeader(s string) bool {
	letters := 0
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			return false
		case r >= 'A' && r <= 'Z':
			letters++
		}
	}
	return letters >= 4
}

func (p *Parser) columnsFromDashes(d string) []int {
	var starts []int
	for _, m := range p.dashRun.FindAllStringIndex(d, -1) {
		starts = append(starts, m[0])
	}
	return starts
}

// cells cuts a line at the column starts (in console cells: a Chinese display name
// takes two per character). A cell that runs into the next column (a kubectl cell on a
// misaligned row) moves the cut to the next gap; one that starts before its column (a
// right-aligned number) is backed up to its first character.
func cells(line string, starts []int) []string {
	// at[c] is the byte offset of console cell c; the line's end closes it.
	var at []int
	for i, r := range line {
		for range runeCells(r) {
			at = append(at, i)
		}
	}
	n := len(at)
	at = append(at, len(line))
	space := func(c int) bool { return line[at[c]] == ' ' }
	out := make([]string, len(starts))
	pos := 0
	for i := range starts {
		s := max(starts[i], pos)
		if s >= n {
			break
		}
		for s > pos && !space(s) && !space(s-1) {
			s--
		}
		end := n
		if i+1 < len(starts) && starts[i+1] < n {
			end = max(starts[i+1], s)
			for end < n && end > s && !space(end-1) && !space(end) {
				end++
			}
		}
		out[i] = strings.TrimSpace(line[at[s]:at[end]])
		pos = end
	}
	return out
}

func (t *Table) readRows(lines []Line, starts []int, formatTable bool) {
	for i, l := range lines {
		if blank(l.Text) {
			if formatTable && len(t.Rows) > 0 {
				t.Leftover = append(t.Leftover, lines[i+1:]...)
				return
			}
			continue
		}
		c := cells(strings.TrimRight(l.Text, " "), starts)
		// A wrapped row (Format-Table -Wrap) continues with the first column empty.
		if formatTable && c[0] == "" && len(t.Rows) > 0 && leading(l.Text) >= starts[min(1, len(starts)-1)] {
			prev := &t.Rows[len(t.Rows)-1]
			for j := range c {
				if c[j] != "" {
					prev.Cells[j] = strings.TrimSpace(prev.Cells[j] + " " + c[j])
				}
			}
			continue
		}
		if c[0] == "" {
			t.Leftover = append(t.Leftover, l)
			continue
		}
		t.Rows = append(t.Rows, Row{Cells: c, Line: l.No})
	}
}
