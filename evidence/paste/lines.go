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
}

// Lines splits a paste into lines: CRLF and CR ends, a UTF-8 byte-order mark, markdown
// fences and quote marks, and serial-console prefixes (when most lines carry one) go.
func (p *Parser) Lines(text string) []Line {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	raw := strings.Split(text, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	serial, quoted, nonEmpty := 0, 0, 0
	for _, l := range raw {
		if strings.TrimSpace(l) == "" {
			continue
		}
		nonEmpty++
		if p.serialPrefix.MatchString(l) {
			serial++
		}
		if strings.HasPrefix(l, ">") {
			quoted++
		}
	}
	stripSerial := serial > 0 && serial*2 >= nonEmpty
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
				source, first = src, false
			}
			if src != source {
				source = ""
				break
			}
		}
	}
	stripQuote := quoted > 0 && quoted == nonEmpty
	out := make([]Line, 0, len(raw))
	for i, l := range raw {
		if stripSerial && p.serialPrefix.MatchString(l) {
			l = strings.TrimPrefix(p.serialPrefix.ReplaceAllString(l, ""), source)
		}
		if stripQuote {
			l = strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
		}
		l = strings.ReplaceAll(l, "\t", "    ")
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") {
			// A fence alone (or with its language) is dropped; one glued to the first
			// line ("```PS C:\>") is cut off.
			rest := strings.TrimPrefix(t, "```")
			if strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == "" {
				continue
			}
			l = rest
		}
		out = append(out, Line{Text: l, No: i + 1})
	}
	return out
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
