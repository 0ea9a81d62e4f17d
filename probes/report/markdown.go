package report

import (
	"bufio"
	"fmt"
	"path"
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

func writeMarkdown(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options) error {
	fmt.Fprintf(w, "# %s report\n\n", mdInline(toolName(meta)))
	if ps := metaParts(meta); len(ps) > 0 {
		parts := make([]string, len(ps))
		for i, kv := range ps {
			parts[i] = fmt.Sprintf("**%s:** %s", strings.ToUpper(kv[0][:1])+kv[0][1:], mdInline(kv[1]))
		}
		fmt.Fprintf(w, "%s\n\n", strings.Join(parts, " · "))
	}

	fmt.Fprintf(w, "## Summary\n\n%s\n\n", summaryLine(sorted))
	rows := NodeSummary(sorted)
	if len(rows) > 0 {
		fmt.Fprintln(w, "| Node | Status | Fail | Warn | Error | Pass |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | %s %s | %d | %d | %d | %d |\n", mdCell(NodeLabel(r.Node)),
				r.Worst.Glyph(), r.Worst, r.Counts[probes.Fail], r.Counts[probes.Warn],
				r.Counts[probes.Error], r.Counts[probes.Pass])
		}
		fmt.Fprintln(w)
	}

	var quiet []probes.Finding // pass and skip: collapsed at the end
	first := true
	for _, f := range sorted {
		if f.Status < probes.Warn {
			quiet = append(quiet, f)
			continue
		}
		if first {
			fmt.Fprint(w, "## Findings\n\n")
			first = false
		}
		writeMarkdownFinding(w, f, opt)
	}

	if len(quiet) > 0 {
		c := Counts(quiet)
		label := fmt.Sprintf("%d passing", c[probes.Pass])
		if c[probes.Skip] > 0 {
			label += fmt.Sprintf(", %d skipped", c[probes.Skip])
		}
		fmt.Fprintf(w, "## Passing checks\n\n<details>\n<summary>%s</summary>\n\n", label)
		for _, f := range quiet {
			fmt.Fprintf(w, "- %s %s\n", f.Status.Glyph(), findingTitle(f))
		}
		fmt.Fprint(w, "\n</details>\n")
	}
	return nil
}

// findingTitle is "HNS-NETWORK on win-1: summary".
func findingTitle(f probes.Finding) string {
	where := " (cluster-wide)"
	if f.Node != "" {
		where = " on " + mdInline(f.Node)
	}
	return mdInline(f.Probe) + where + ": " + mdInline(f.Summary)
}

func writeMarkdownFinding(w *bufio.Writer, f probes.Finding, opt Options) {
	fmt.Fprintf(w, "### %s %s\n\n", f.Status.Glyph(), findingTitle(f))
	if len(f.Details) > 0 {
		for _, d := range f.Details {
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
		for _, e := range f.Evidence {
			if ex, ok := opt.Excerpts[e]; ok {
				writeExcerpt(w, e, ex)
			}
		}
	}
	if f.Fix != nil {
		writeMarkdownFix(w, f.Fix, "Fix")
	}
}

func writeExcerpt(w *bufio.Writer, p, ex string) {
	body, cut := truncateExcerpt(clean(ex))
	fmt.Fprintf(w, "Evidence excerpt %s:\n\n", codeSpan(p))
	writeFence(w, excerptLang(p), body)
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

func writeMarkdownFix(w *bufio.Writer, fx *probes.Fix, label string) {
	fmt.Fprintf(w, "**%s:** %s (%s)\n\n", label, mdInline(fx.Title), codeSpan(fixKindAction(fx)))
	if fx.Disruptive {
		fmt.Fprintf(w, "**⚠ Disruptive: %s**\n\n", mdInline(orDefault(fx.Impact, "this fix interrupts workloads on the node")))
	}
	if fx.Precheck != "" {
		fmt.Fprintf(w, "Precondition: %s\n\n", mdInline(fx.Precheck))
	}
	if len(fx.Commands) > 0 {
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
	if len(fx.Notes) > 0 {
		for _, n := range fx.Notes {
			fmt.Fprintf(w, "- %s\n", mdInline(n))
		}
		fmt.Fprintln(w)
	}
	for _, c := range fx.Choices {
		if c != nil {
			writeMarkdownFix(w, c, "Alternative fix")
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
