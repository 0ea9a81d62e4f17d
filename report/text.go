package report

import (
	"bufio"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Plain ANSI SGR codes rather than lipgloss: the text report needs a handful of
// foreground colours, and its colour decision is the caller's (opt.Color), not the
// terminal's, so a styling library would add nothing but a dependency.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
)

// statusColor is the ANSI colour of a status.
func statusColor(s probes.Status) string {
	switch s {
	case probes.Pass:
		return "\x1b[32m" // green
	case probes.Skip:
		return "\x1b[90m" // grey
	case probes.Warn:
		return "\x1b[33m" // yellow
	case probes.Fail:
		return "\x1b[31m" // red
	}
	return "\x1b[35m" // magenta: "could not judge" is not "broken"
}

// painter applies colour only when asked, so the plain path has no escape bytes at all.
type painter bool

func (p painter) paint(code, s string) string {
	if !p || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p painter) status(s probes.Status, text string) string { return p.paint(statusColor(s), text) }

// maxIDWidth caps probe ID padding so one long ID does not push every summary right.
const maxIDWidth = 20

func writeText(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options) error {
	p := painter(opt.Color)
	if line := textMetaLine(meta); line != "" {
		fmt.Fprintln(w, p.paint(ansiBold, line))
		fmt.Fprintln(w)
	}
	idWidth := 0
	for _, f := range sorted {
		idWidth = max(idWidth, min(utf8.RuneCountInString(oneLine(f.Probe)), maxIDWidth))
	}
	writeTextRoots(w, sorted, p)
	graph := probes.NewGraph(sorted)
	// The same finding on several nodes is written out once, where it first appears; the
	// other nodes point there.
	firstOf := map[string]string{}  // sameKey -> node whose copy is written out
	others := map[string][]string{} // sameKey -> the other nodes
	for _, e := range fleetEntries(graph, sorted) {
		if len(e.members) > 1 {
			k := sameKey(e.first)
			firstOf[k] = NodeLabel(e.first.Node)
			for _, m := range e.members[1:] {
				others[k] = append(others[k], NodeLabel(m.Node))
			}
		}
	}
	for _, g := range groupByNode(sorted) {
		worst := g.worst()
		fmt.Fprintf(w, "%s %s  %s\n", p.status(worst, worst.Glyph()),
			p.paint(ansiBold, oneLine(opt.nodeHeading(g.node))), p.paint(ansiDim, countsPhrase(Counts(g.findings))))
		for _, f := range g.findings {
			id := oneLine(f.Probe)
			pad := strings.Repeat(" ", max(0, idWidth-utf8.RuneCountInString(id)))
			indent := "  "
			if len(sameNodeCauses(graph, f)) > 0 && f.Status >= probes.Warn {
				indent = "    " // folded under the cause shown above it
			}
			fmt.Fprintf(w, "%s%s %s%s  %s\n", indent, p.status(f.Status, f.Status.Glyph()),
				p.status(f.Status, id), pad, oneLine(f.Summary))
			k := sameKey(f)
			if first, ok := firstOf[k]; ok && f.Status >= probes.Warn && first != NodeLabel(f.Node) {
				fmt.Fprintf(w, "%s  %s\n", indent, p.paint(ansiDim, "as on "+oneLine(first)+" (details there)"))
				continue
			}
			if f.Status >= probes.Warn || opt.Verbose {
				if more := others[k]; len(more) > 0 && f.Status >= probes.Warn {
					writeIndented(w, indent+"  "+p.paint(ansiBold, fmt.Sprintf("also on %d more %s:", len(more), plural(len(more), "node", "nodes")))+" ", indent+"    ", oneLine(strings.Join(more, ", ")))
				}
				writeCauseLines(w, graph, f, indent+"  ", p)
				writeFindingBody(w, f, indent+"  ", p)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, p.paint(ansiBold, summaryLine(sorted)))
	return nil
}

// writeTextRoots lists the root causes before any node: what to fix first, and what
// each fix should also clear.
func writeTextRoots(w *bufio.Writer, sorted []probes.Finding, p painter) {
	roots := RootCauses(sorted)
	if len(roots) == 0 {
		return
	}
	fmt.Fprintln(w, p.paint(ansiBold, "Root causes, fix these first:"))
	for _, r := range roots {
		fmt.Fprintf(w, "  %s %s  %s\n", p.status(r.Status, r.Status.Glyph()), p.status(r.Status, oneLine(r.Ref.String())), oneLine(r.Summary))
		if len(r.Clears) > 0 {
			writeIndented(w, "      "+p.paint(ansiDim, "fixing this should also clear:")+" ", "        ", refList(r.Clears, r.Node))
		}
	}
	fmt.Fprintln(w)
}

// writeCauseLines says what explains a finding, or what fixing it should also clear.
func writeCauseLines(w *bufio.Writer, g probes.Graph, f probes.Finding, indent string, p painter) {
	if !isConsequence(g, f) {
		if clears := g.Clears(f.Ref()); len(clears) > 0 && g.IsRoot(f) {
			writeIndented(w, indent+p.paint(ansiBold, "root cause;")+" fixing this should also clear: ", indent+"  ", refList(clears, f.Node))
		}
		return
	}
	writeIndented(w, indent+p.paint(ansiBold, "caused by:")+" ", indent+"  ", refList(g.Causes(f), f.Node))
}

func textMetaLine(m Meta) string {
	parts := []string{toolName(m)}
	for _, kv := range metaParts(m) {
		if kv[0] == "version" {
			parts[0] += " " + kv[1]
			continue
		}
		parts = append(parts, kv[0]+": "+kv[1])
	}
	if len(parts) == 1 && m.Tool == "" && m.Version == "" {
		return "" // nothing but the default name: no header, keeps minimal output minimal
	}
	return oneLine(strings.Join(parts, " · "))
}

// countsPhrase is "1 fail, 2 pass", worst first, zero counts left out.
func countsPhrase(c map[probes.Status]int) string {
	var parts []string
	for s := probes.Error; s >= probes.Pass; s-- {
		if c[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

// writeFindingBody writes details, evidence and fix below a finding line. JUnit reuses
// it (uncoloured) for failure bodies so CI shows the same words as the terminal.
func writeFindingBody(w *bufio.Writer, f probes.Finding, indent string, p painter) {
	for _, d := range f.Details {
		writeIndented(w, indent, indent+"  ", d)
	}
	if len(f.Evidence) > 0 {
		ev := make([]string, len(f.Evidence))
		for i, e := range f.Evidence {
			ev[i] = oneLine(e)
		}
		fmt.Fprintf(w, "%s%s %s\n", indent, p.paint(ansiDim, "evidence:"), strings.Join(ev, ", "))
	}
	if f.Fix != nil {
		writeFix(w, f.Fix, indent, "fix:", p)
	}
}

func writeFix(w *bufio.Writer, fx *probes.Fix, indent, label string, p painter) {
	fmt.Fprintf(w, "%s%s %s  %s\n", indent, p.paint(ansiBold, label), oneLine(fx.Title),
		p.paint(ansiDim, "["+fixKindAction(fx)+"]"))
	in := indent + "  "
	if fx.Disruptive {
		writeIndented(w, in+p.status(probes.Fail, "disruptive:")+" ", in+"  ", orDefault(fx.Impact, "yes"))
	}
	if fx.Precheck != "" {
		writeIndented(w, in+"precondition: ", in+"  ", fx.Precheck)
	}
	for _, c := range fx.Commands {
		writeIndented(w, in+"$ ", in+"  ", c)
	}
	for _, n := range fx.Notes {
		writeIndented(w, in+"note: ", in+"  ", n)
	}
	for _, c := range fx.Choices {
		if c != nil {
			writeFix(w, c, in, "or:", p)
		}
	}
}

func fixKindAction(fx *probes.Fix) string {
	return strings.TrimSpace(oneLine(string(fx.Kind) + " " + string(fx.Action)))
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// writeIndented writes a possibly multi-line value: first line after first, the rest
// after rest, so a multi-line command or detail stays readable and aligned.
func writeIndented(w *bufio.Writer, first, rest, s string) {
	lines := strings.Split(strings.TrimRight(clean(s), "\n"), "\n")
	for i, l := range lines {
		prefix := rest
		if i == 0 {
			prefix = first
		}
		fmt.Fprintln(w, strings.TrimRight(prefix+l, " "))
	}
}

// clean makes untrusted text (evidence printed by a node, names from the API) safe to
// show: CRLF becomes LF, a BOM is dropped, and control characters, bidi overrides and
// invalid UTF-8 become visible escapes. That keeps a hostile or garbled node from
// moving the cursor, recolouring the terminal or reordering text in a ticket.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// drop: the \n that follows is kept
		case r == '\uFEFF':
			// byte-order mark from PowerShell's UTF-8 output: invisible noise
		case needsEscape(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func isClean(s string) bool {
	for i, r := range s {
		if (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) || r == '\r' || r == '\uFEFF' || needsEscape(r) {
			return false
		}
	}
	return true
}

func needsEscape(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1 (0x9b is CSI)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi overrides
		return true
	}
	return false
}

// oneLine is clean for fields meant to be a single line (summary, IDs, titles): any
// newlines a probe or node let through are folded into spaces.
func oneLine(s string) string {
	s = clean(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
