package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Excerpt selection: a ticket shows the lines of an evidence file the judgement used, with
// a few lines of context, not the whole file (the bundle has it). Probes cite files, not
// lines, so the lines are found from the finding's own words: the addresses, CIDRs, names
// and quoted values its summary and details name are what it compared. This is a
// heuristic written here by hand; a file with no such line is shown from its start.
const (
	excerptContext  = 1   // lines shown either side of a matching line
	excerptMaxShown = 12  // matching lines and context, at most
	excerptLineCap  = 240 // bytes kept of one long line (PowerShell's compressed JSON)
	excerptWhole    = 12  // a file this short is shown whole
)

// excerptTokenRE finds the words of a finding worth looking for: addresses and CIDRs,
// quoted values, and identifiers with a digit, dash, dot, colon or backslash in them
// (l2bridge, kube-proxy, ltsc2022, C:\k\cni).
func excerptTokenRE() *regexp.Regexp {
	return regexp.MustCompile(`\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|"[^"]{3,}"|[A-Za-z][\w]*[-.:\\/][\w.:\\/-]*[\w]|[A-Za-z]+\d[\w]*|\d+[A-Za-z][\w]*`)
}

// excerptTokens are the finding's searchable words, longest first, without ones too
// common to mean anything (a file path the finding cites, the probe ID).
func excerptTokens(f probes.Finding) []string {
	re := excerptTokenRE()
	seen := map[string]bool{}
	var out []string
	for _, s := range append([]string{f.Summary}, f.Details...) {
		for _, t := range re.FindAllString(s, -1) {
			t = strings.Trim(t, `"`)
			lt := strings.ToLower(t)
			if len(t) < 3 || seen[lt] || strings.HasPrefix(lt, "nodes/") || strings.HasPrefix(lt, "cluster/") ||
				strings.EqualFold(t, f.Probe) || lt == "e.g" || lt == "i.e" {
				continue
			}
			seen[lt] = true
			out = append(out, lt)
		}
	}
	// The node's own name finds its object in a cluster file (nodes.json, pods.json).
	if f.Node != "" && !seen[strings.ToLower(f.Node)] {
		out = append(out, `"`+strings.ToLower(f.Node)+`"`)
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// selectExcerpt picks the lines of text the finding speaks of, with context, and says
// what it left out ("" when the whole file is shown).
func selectExcerpt(f probes.Finding, text string) (body, note string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	tokens := excerptTokens(f)
	if len(lines) <= excerptWhole {
		for i, l := range lines {
			lines[i] = clipLine(l, tokens)
		}
		return strings.Join(lines, "\n"), ""
	}
	keep := make([]bool, len(lines))
	hit := make([]bool, len(lines))
	matched := 0
	for i, l := range lines {
		if lineMatches(l, tokens) {
			hit[i] = true
			matched++
			for j := max(0, i-excerptContext); j <= min(len(lines)-1, i+excerptContext); j++ {
				keep[j] = true
			}
		}
	}
	if matched == 0 {
		return "", fmt.Sprintf("none of its %d lines names what the finding compared; the whole file is in the bundle", len(lines))
	}
	var b strings.Builder
	shown, gap, same := 0, false, 0
	prev := ""
	flush := func() {
		if same > 0 {
			fmt.Fprintf(&b, "… (%d more like the line above)\n", same)
			same = 0
		}
	}
	for i, l := range lines {
		if !keep[i] || shown >= excerptMaxShown {
			gap = true
			continue
		}
		if strings.TrimSpace(l) == "" {
			continue // pretty-printed JSON's blank lines tell nothing
		}
		// A log repeating one error: show it once and count the rest. A line the finding
		// names is always shown.
		if n := digitless(l); n == prev && !gap && !hit[i] {
			same++
			continue
		} else {
			prev = n
		}
		flush()
		if gap && b.Len() > 0 {
			b.WriteString("…\n")
		}
		gap = false
		b.WriteString(clipLine(l, tokens))
		b.WriteByte('\n')
		shown++
	}
	flush()
	return b.String(), fmt.Sprintf("%d of %d lines: the ones naming what the finding compared, with %s of context; the whole file is in the bundle", shown, len(lines), plural(excerptContext, "1 line", fmt.Sprintf("%d lines", excerptContext)))
}

func lineMatches(l string, tokens []string) bool {
	ll := strings.ToLower(l)
	return slices.ContainsFunc(tokens, func(t string) bool { return strings.Contains(ll, t) })
}

// clipLine keeps a window of a long line around the first token it holds.
func clipLine(l string, tokens []string) string {
	if len(l) <= excerptLineCap {
		return l
	}
	ll := strings.ToLower(l)
	at := 0
	for _, t := range tokens {
		if i := strings.Index(ll, t); i >= 0 {
			at = i
			break
		}
	}
	start := max(0, at-excerptLineCap/3)
	end := min(len(l), start+excerptLineCap)
	for start > 0 && !isRuneStart(l[start]) {
		start--
	}
	for end < len(l) && !isRuneStart(l[end]) {
		end++
	}
	out := l[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(l) {
		out += fmt.Sprintf("… (%d more bytes on this line)", len(l)-end)
	}
	return out
}

// digitless is a line with its digits dropped: log lines that differ only by time stamp
// compare equal.
func digitless(l string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, l)
}
