package paste

import "strings"

// ListView is a parsed Format-List block.
type ListView struct {
	Records []Record
	// Leftover are the lines that were not part of any record (text around the output,
	// a prompt, a warning); the caller reports them.
	Leftover []Line
	// Width is the console width the block was wrapped at, as far as it shows (the
	// widest line).
	Width int
}

// rawField is a field as printed: its first line's value and its continuation lines.
type rawField struct {
	name     string
	valueCol int // where the value starts on the first line
	first    string
	head     string // the whole first line
	more     []string
}

type rawRecord struct {
	fields []rawField
	line   int
	colon  int // cells before " :" on the record's lines
	// collapsed: every field so far has one space before its " :" (padding lost).
	collapsed bool
}

// ParseList reads PowerShell list-view text: records separated by blank lines (or
// starting again at a property the record already has, when the blank lines were lost),
// values wrapped onto continuation lines at any width, mid-word or not, with their
// indentation kept, lost or changed.
func (p *Parser) ParseList(lines []Line) ListView {
	var lv ListView
	for _, l := range lines {
		if w := Cells(strings.TrimRight(l.Text, " ")); w > lv.Width {
			lv.Width = w
		}
	}
	var recs []rawRecord
	var cur *rawRecord
	open := false // the last field can take continuation lines
	for _, l := range lines {
		if blank(l.Text) {
			open = false
			continue
		}
		if m := p.propLine.FindStringSubmatch(l.Text); m != nil {
			colon := len(m[1]) + len(m[2]) + len(m[3])
			f := rawField{name: m[2], valueCol: colon + 3, first: strings.TrimRight(m[4], " "), head: l.Text}
			switch {
			case cur == nil || !open || cur.has(m[2]):
				recs = append(recs, rawRecord{line: l.No, colon: colon, collapsed: m[3] == ""})
				cur = &recs[len(recs)-1]
				cur.fields, open = []rawField{f}, true
				continue
			case colon == cur.colon:
				cur.fields = append(cur.fields, f)
				cur.collapsed = cur.collapsed && m[3] == ""
				continue
			case cur.collapsed && m[3] == "":
				// A page or chat that collapsed PowerShell's padding to one space: the
				// colons no longer line up, every name is followed by " : ".
				cur.fields = append(cur.fields, f)
				continue
			}
		}
		if open {
			last := &cur.fields[len(cur.fields)-1]
			last.more = append(last.more, l.Text)
			continue
		}
		lv.Leftover = append(lv.Leftover, l)
	}
	cut := consoleCut(recs, lv.Width)
	if !cut {
		// Continuations that lost their indentation were as wide as they are plus it.
		for _, r := range recs {
			for _, f := range r.fields {
				for _, l := range f.more {
					if ind := leading(l); ind < f.valueCol {
						lv.Width = max(lv.Width, Cells(strings.TrimRight(l, " "))+f.valueCol-ind)
					}
				}
			}
		}
	}
	for _, r := range recs {
		rec := Record{Line: r.line}
		for _, f := range r.fields {
			rec.Fields = append(rec.Fields, Field{Name: f.name, Value: ParseValue(f.join(lv.Width, cut))})
		}
		lv.Records = append(lv.Records, rec)
	}
	return lv
}

func (r *rawRecord) has(name string) bool {
	for _, f := range r.fields {
		if strings.EqualFold(f.name, name) {
			return true
		}
	}
	return false
}

// consoleCut tells a console that cut lines anywhere (continuations at column 0, each
// but a value's last as wide as the console) from a paste that lost PowerShell's
// indentation (continuations at column 0, none wider than the value column leaves).
// When no value has two continuation lines, the line before the only one decides: a
// console cut it full, PowerShell mostly at a space short of the edge.
func consoleCut(recs []rawRecord, width int) bool {
	inner, innerFull, total, afterFull := 0, 0, 0, 0
	for _, r := range recs {
		for _, f := range r.fields {
			prev := f.head
			for i, l := range f.more {
				if leading(l) < f.valueCol {
					total++
					if Cells(strings.TrimRight(prev, " ")) >= width-1 {
						afterFull++
					}
					if i < len(f.more)-1 {
						inner++
						if Cells(strings.TrimRight(l, " ")) >= width-1 {
							innerFull++
						}
					}
				}
				prev = l
			}
		}
	}
	if inner > 0 {
		return innerFull*2 > inner
	}
	return total > 0 && afterFull*2 > total
}

// join puts a wrapped value back together. PowerShell word-wraps a value at the
// console width, dropping the space it broke at, and cuts a word longer than the line
// where the line ends; a console narrower than PowerShell thought cuts anywhere and does
// not indent. So: a line that ended short of the width broke at a space; a full line
// (or one a wide character did not fit on) was cut inside a word, unless the word
// across the break is short enough that PowerShell would have moved it whole, which
// means the line ended exactly at a space.
func (f rawField) join(width int, cut bool) string {
	var b strings.Builder
	b.WriteString(f.first)
	prev, prevCells := f.head, Cells(strings.TrimRight(f.head, " "))
	for _, line := range f.more {
		ind := leading(line)
		rest := line[ind:]
		body := strings.TrimRight(rest, " ")
		full := prevCells >= width || (prevCells == width-1 && firstRuneCells(rest) == 2)
		lineCells := Cells(strings.TrimRight(line, " "))
		switch {
		case b.Len() == 0:
		case cut && ind < f.valueCol:
			if full {
				// The console cut a full line: what follows is the value, spaces included.
				body = strings.TrimRight(line, " ")
			} else {
				b.WriteByte(' ')
			}
		case !full:
			b.WriteByte(' ')
		default:
			// PowerShell cut here only if the word is longer than a line. A line that a long
			// word filled exactly is followed by a new word, not its rest, when that starts a
			// command-line flag: "--resolv-conf" after ".../pause:1.2.0" (SDN Kubelet-Options).
			if Cells(lastToken(strings.TrimRight(prev, " ")))+Cells(firstToken(body)) <= width-f.valueCol ||
				strings.HasPrefix(body, "--") && !strings.HasSuffix(strings.TrimRight(prev, " "), "-") {
				b.WriteByte(' ')
			}
		}
		if !cut && ind < f.valueCol {
			lineCells += f.valueCol - ind // the indentation the paste lost
		} else if ind > f.valueCol {
			body = strings.Repeat(" ", ind-f.valueCol) + body
		}
		b.WriteString(body)
		prev, prevCells = line, lineCells
	}
	return b.String()
}

func lastToken(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

func firstToken(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}
