package report

import (
	"bufio"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Excerpt limits: a ticket should show the telling part of the evidence, not the whole
// file. Byte limits matter as much as lines because PowerShell's compressed JSON is one
// very long line.
const (
	ExcerptMaxLines = 40
	ExcerptMaxBytes = 4000
)

func writeMarkdownAt(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options, lvl trimLevel) {
	fmt.Fprintf(w, "# %s report\n\n", mdInline(toolName(meta)))
	if ps := metaParts(meta); len(ps) > 0 {
		parts := make([]string, len(ps))
		for i, kv := range ps {
			parts[i] = fmt.Sprintf("**%s:** %s", strings.ToUpper(kv[0][:1])+kv[0][1:], mdInline(kv[1]))
		}
		fmt.Fprintf(w, "%s\n\n", strings.Join(parts, " · "))
	}
	if lvl > trimNone {
		fmt.Fprintf(w, "_Trimmed to fit %d characters: %s left out (the bundle has them)._\n\n", opt.MaxSize, lvl.said())
	}

	fmt.Fprintf(w, "## Summary\n\n%s\n\n", summaryLine(sorted))
	rows := NodeSummary(sorted)
	if len(rows) > 0 && lvl < trimNodeTable {
		fmt.Fprintln(w, "| Node | Status | Fail | Warn | Error | Pass |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
		quietNodes := 0
		for _, r := range rows {
			if lvl >= trimQuietRows && r.Worst < probes.Warn {
				quietNodes++
				continue
			}
			fmt.Fprintf(w, "| %s | %s %s | %d | %d | %d | %d |\n", mdCell(opt.nodeHeading(r.Node)),
				r.Worst.Glyph(), r.Worst, r.Counts[probes.Fail], r.Counts[probes.Warn],
				r.Counts[probes.Error], r.Counts[probes.Pass])
		}
		if quietNodes > 0 {
			fmt.Fprintf(w, "\n%d more nodes pass or skip every check (rows trimmed).\n", quietNodes)
		}
		fmt.Fprintln(w)
	}
	writeMarkdownRoots(w, sorted, lvl >= trimRootSummary)

	g := probes.NewGraph(sorted)
	var quiet []probes.Finding // pass and skip: collapsed at the end
	for _, f := range sorted {
		if f.Status < probes.Warn {
			quiet = append(quiet, f)
		}
	}
	for i, e := range fleetEntries(g, sorted) {
		if i == 0 {
			fmt.Fprint(w, "## Findings\n\n")
		}
		writeMarkdownEntry(w, g, e, opt, lvl)
	}

	if len(quiet) > 0 {
		c := Counts(quiet)
		label := fmt.Sprintf("%d passing", c[probes.Pass])
		if c[probes.Skip] > 0 {
			label += fmt.Sprintf(", %d skipped", c[probes.Skip])
		}
		if lvl >= trimQuiet {
			fmt.Fprintf(w, "## Passing checks\n\n%s (list trimmed).\n", label)
			return
		}
		fmt.Fprintf(w, "## Passing checks\n\n<details>\n<summary>%s</summary>\n\n", label)
		for _, l := range quietByProbe(quiet, nodeLabels(sorted)) {
			fmt.Fprintf(w, "- %s\n", l)
		}
		fmt.Fprint(w, "\n</details>\n")
	}
}

// writeMarkdownRoots is the list to fix first, each with what it should also clear.
func writeMarkdownRoots(w *bufio.Writer, sorted []probes.Finding, bare bool) {
	roots := RootCauses(sorted)
	if len(roots) == 0 {
		return
	}
	fmt.Fprint(w, "## Root causes\n\nFix these first; the rest of the failures follow from them.\n\n")
	for _, r := range roots {
		if bare {
			fmt.Fprintf(w, "- %s **%s**\n", r.Status.Glyph(), mdInline(r.Ref.String()))
		} else {
			fmt.Fprintf(w, "- %s **%s**: %s\n", r.Status.Glyph(), mdInline(r.Ref.String()), mdInline(r.Summary))
		}
		if len(r.Clears) > 0 {
			fmt.Fprintf(w, "  - fixing this should also clear: %s\n", mdInline(refList(r.Clears, r.Node)))
		}
	}
	fmt.Fprintln(w)
}

// findingTitle is "HNS-NETWORK on win-1: summary".
func findingTitle(f probes.Finding) string {
	where := " (cluster-wide)"
	if f.Node != "" {
		where = " on " + mdInline(f.Node)
	}
	return mdInline(f.Probe) + where + ": " + mdInline(f.Summary)
}

// writeMarkdownEntry writes one finding, or one finding seen on several nodes: the nodes,
// the detail lines they share, what differs per node, then the first node's evidence and
// fix (the others' differ only by node name).
func writeMarkdownEntry(w *bufio.Writer, g probes.Graph, e fleetEntry, opt Options, lvl trimLevel) {
	if len(e.members) == 1 {
		fmt.Fprintf(w, "### %s %s\n\n", e.first.Status.Glyph(), findingTitle(e.first))
		writeMarkdownFinding(w, g, e.first, e.first.Details, opt, lvl)
		return
	}
	f := e.first
	nodes := nodesPhrase(e.members)
	if f.Status == probes.Warn && lvl >= trimWarnNodes {
		nodes = fmt.Sprintf("%d nodes", len(e.members))
	}
	fmt.Fprintf(w, "### %s %s on %s: %s\n\n", f.Status.Glyph(), mdInline(f.Probe), mdInline(nodes), mdInline(f.Summary))
	common, differ := commonDetails(e.members)
	if len(differ) > 0 && !(f.Status == probes.Warn && lvl >= trimWarnDetails) {
		fmt.Fprint(w, "Differs per node:\n\n")
		for _, m := range e.members {
			if ds := differ[m.Node]; len(ds) > 0 {
				fmt.Fprintf(w, "- %s: %s\n", mdInline(NodeLabel(m.Node)), mdInline(strings.Join(ds, "; ")))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "_Evidence and fix shown for %s; the same on the other nodes, with their names._\n\n", mdInline(NodeLabel(f.Node)))
	writeMarkdownFinding(w, g, f, common, opt, lvl)
}

func writeMarkdownFinding(w *bufio.Writer, g probes.Graph, f probes.Finding, details []string, opt Options, lvl trimLevel) {
	if isConsequence(g, f) {
		fmt.Fprintf(w, "_Caused by %s: fixing that should clear this too._\n\n", mdInline(refList(g.Causes(f), f.Node)))
	} else if clears := g.Clears(f.Ref()); len(clears) > 0 {
		fmt.Fprintf(w, "**Root cause.** Fixing this should also clear: %s\n\n", mdInline(refList(clears, f.Node)))
	}
	warn := f.Status == probes.Warn
	cut := warn && lvl >= trimWarnDetails || isConsequence(g, f) && lvl >= trimEffectDetails || lvl >= trimAllDetails
	if len(details) > 0 && !cut {
		for _, d := range details {
			fmt.Fprintf(w, "- %s\n", mdInline(d))
		}
		fmt.Fprintln(w)
	}
	if len(f.Evidence) > 0 {
		spans := make([]string, len(f.Evidence))
		for i, e := range f.Evidence {
			spans[i] = codeSpan(e)
		}
		fmt.Fprintf(w, "Evidence: %s\n\n", strings.Join(spans, ", "))
		if !(warn && lvl >= trimWarnExcerpt) && !(isConsequence(g, f) && lvl >= trimEffectExcerpts) && lvl < trimAllExcerpts {
			shown := 0
			for _, e := range f.Evidence {
				if ex, ok := opt.Excerpts[e]; ok && (shown == 0 || lvl < trimExtraExcerpts) {
					writeExcerpt(w, f, e, ex)
					shown++
				}
			}
		}
	}
	if f.Fix != nil {
		writeMarkdownFix(w, f.Fix, "Fix", nil, fixCut{
			commands: warn && lvl >= trimWarnFixes || isConsequence(g, f) && lvl >= trimEffectFixes || lvl >= trimFixCommands,
			notes:    warn && lvl >= trimWarnFixes || lvl >= trimFixNotes,
		})
	}
}

func writeExcerpt(w *bufio.Writer, f probes.Finding, p, ex string) {
	sel, note := selectExcerpt(f, clean(ex))
	if sel == "" {
		fmt.Fprintf(w, "_%s: %s._\n\n", codeSpan(p), mdInline(note))
		return
	}
	body, cut := truncateExcerpt(sel)
	fmt.Fprintf(w, "Evidence excerpt %s:\n\n", codeSpan(p))
	writeFence(w, excerptLang(p), body)
	if note != "" {
		fmt.Fprintf(w, "_%s._\n\n", mdInline(note))
	}
	if cut != "" {
		fmt.Fprintf(w, "_%s._\n\n", cut)
	}
}

// truncateExcerpt keeps the first ExcerptMaxLines lines and ExcerptMaxBytes bytes
// (cut on a rune boundary) and says what it left out.
func truncateExcerpt(s string) (body, cut string) {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	var dropped int
	if len(lines) > ExcerptMaxLines {
		dropped = len(lines) - ExcerptMaxLines
		lines = lines[:ExcerptMaxLines]
	}
	body = strings.Join(lines, "\n")
	var bytesCut int
	if len(body) > ExcerptMaxBytes {
		end := ExcerptMaxBytes
		for end > 0 && !isRuneStart(body[end]) {
			end--
		}
		bytesCut = len(body) - end
		body = body[:end]
	}
	switch {
	case dropped > 0 && bytesCut > 0:
		cut = fmt.Sprintf("… excerpt truncated: %d more lines and %d bytes not shown", dropped, bytesCut)
	case dropped > 0:
		cut = fmt.Sprintf("… excerpt truncated: %d more lines not shown", dropped)
	case bytesCut > 0:
		cut = fmt.Sprintf("… excerpt truncated: %d more bytes not shown", bytesCut)
	}
	return body, cut
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// excerptLang picks a syntax-highlighting hint from the evidence file name.
func excerptLang(p string) string {
	switch path.Ext(p) {
	case ".json":
		return "json"
	case ".toml":
		return "toml"
	case ".ps1":
		return "powershell"
	case ".yaml", ".yml":
		return "yaml"
	}
	return "text"
}

// fixCut is what --max-size left out of a fix: its commands (the title, the kind and
// whether it is disruptive stay) and its notes.
type fixCut struct{ commands, notes bool }

func writeMarkdownFix(w *bufio.Writer, fx *probes.Fix, label string, parent *probes.Fix, cut fixCut) {
	sameCommands := parent != nil && slices.Equal(parent.Commands, fx.Commands)
	fmt.Fprintf(w, "**%s:** %s (%s)\n\n", label, mdInline(fx.Title), codeSpan(fixKindAction(fx)))
	if cut.commands {
		if fx.Disruptive {
			fmt.Fprint(w, "**⚠ Disruptive.**\n\n")
		}
		for _, c := range fx.Choices {
			if c != nil {
				fmt.Fprintf(w, "**Alternative fix:** %s (%s)\n\n", mdInline(c.Title), codeSpan(fixKindAction(c)))
			}
		}
		return
	}
	if fx.Disruptive {
		fmt.Fprintf(w, "**⚠ Disruptive: %s**\n\n", mdInline(orDefault(fx.Impact, "this fix interrupts workloads on the node")))
	}
	if fx.Precheck != "" {
		fmt.Fprintf(w, "Precondition: %s\n\n", mdInline(fx.Precheck))
	}
	if len(fx.Commands) > 0 && sameCommands {
		fmt.Fprint(w, "The same commands as above.\n\n")
	} else if len(fx.Commands) > 0 {
		lang := "text"
		switch fx.Kind {
		case probes.NodeScript:
			lang = "powershell"
		case probes.KubeAPI:
			lang = "sh"
		}
		writeFence(w, lang, clean(strings.Join(fx.Commands, "\n")))
	}
	if fx.Verify != "" {
		fmt.Fprintf(w, "Verify: re-run %s\n\n", codeSpan(fx.Verify))
	}
	if len(fx.Notes) > 0 && !cut.notes {
		for _, n := range fx.Notes {
			fmt.Fprintf(w, "- %s\n", mdInline(n))
		}
		fmt.Fprintln(w)
	}
	for _, c := range fx.Choices {
		if c != nil {
			writeMarkdownFix(w, c, "Alternative fix", fx, cut)
		}
	}
}

// writeFence writes a fenced code block whose fence is longer than any backtick run in
// the body, so evidence (or a PowerShell command, whose escape character is the
// backtick) can never close the block early.
func writeFence(w *bufio.Writer, lang, body string) {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(body, "\n"), fence)
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// codeSpan wraps s in backticks, using a longer delimiter when s holds backticks
// (CommonMark: the delimiter run must not occur inside the span).
func codeSpan(s string) string {
	s = oneLine(s)
	if s == "" {
		return "` `"
	}
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return tick + " " + s + " " + tick
	}
	return tick + s + tick
}

// mdEscaper escapes characters markdown would otherwise read as markup, so a summary
// like "C:\k\*.log missing <kubelet>" renders as written. "<" also matters because the
// report itself uses an HTML <details> block.
func mdEscaper() *strings.Replacer {
	return strings.NewReplacer(
		`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
		`<`, `&lt;`, `>`, `&gt;`, `~`, `\~`,
	)
}

// mdInline renders untrusted text as one line of literal markdown. "#", "-" and "+"
// only mean something at the start of a line (a heading or nested list inside a
// bullet), and a trailing " #" would be eaten as a closing heading sequence.
func mdInline(s string) string {
	s = mdEscaper().Replace(oneLine(s))
	if s != "" && strings.ContainsRune("#-+", rune(s[0])) {
		s = `\` + s
	}
	if t := strings.TrimRight(s, "#"); len(t) < len(s) && strings.HasSuffix(t, " ") {
		s = t + `\` + s[len(t):]
	}
	return s
}

// mdCell is mdInline for a table cell, where "|" would start a new column.
func mdCell(s string) string { return strings.ReplaceAll(mdInline(s), "|", `\|`) }
