package report

import (
	"bufio"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func writeMarkdown(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options) error {
	if opt.MaxSize <= 0 {
		writeMarkdownAt(w, meta, sorted, opt, trimNone)
		return nil
	}
	// Render at growing trim levels until it fits; the least important parts go first.
	var out string
	for lvl := trimNone; lvl <= trimLast; lvl++ {
		var b strings.Builder
		bw := bufio.NewWriter(&b)
		writeMarkdownAt(bw, meta, sorted, opt, lvl)
		if err := bw.Flush(); err != nil {
			return err
		}
		out = b.String()
		// Characters, as --max-size says and as GitHub counts them (a glyph is 3 bytes).
		n := utf8.RuneCountInString(out)
		if n <= opt.MaxSize {
			break
		}
		if lvl == trimLast {
			out += fmt.Sprintf("\n_Still %d characters, over the %d asked for: every failing finding keeps its evidence and fix._\n", n, opt.MaxSize)
		}
	}
	_, err := w.WriteString(out)
	return err
}

// trimLevel is how much of a Markdown report --max-size has cut, least important first.
type trimLevel int

const (
	trimNone           trimLevel = iota
	trimQuiet                    // the list of passing and skipped checks
	trimWarnExcerpt              // evidence excerpts of warnings
	trimWarnDetails              // detail lines of warnings
	trimEffectDetails            // detail lines of consequences (their cause's are kept)
	trimEffectExcerpts           // excerpts of consequences (their paths stay listed)
	trimAllDetails               // every detail line; evidence and fixes always stay
	trimExtraExcerpts            // all but the first excerpt of each failure
	trimAllExcerpts              // every excerpt: evidence paths and fixes still stay
	// A fleet too big even so (many nodes, many distinct failures): what a reader needs
	// least to start on the failures goes next, and a failure keeps its fix's commands.
	trimWarnFixes   // warnings' fix commands and notes (the fix's title stays)
	trimFixNotes    // every fix's notes
	trimEffectFixes // consequences' fix commands: fixing their cause clears them
	trimQuietRows   // summary rows of nodes with nothing at warn or worse
	trimWarnNodes   // the node lists of warnings seen on many nodes (the count stays)
	// The last resorts, for fleets with more distinct failures than a ticket holds: each
	// part they cut is said again elsewhere, or in the bundle and -o json.
	trimNodeTable   // the per-node table (the counts line stays; each failure is below)
	trimRootSummary // the root causes' summaries (each one's finding below has it)
	trimFixCommands // every fix's commands (its title stays; --max-size 0 shows them)
	trimLast        = trimFixCommands
)

func (l trimLevel) said() string {
	var parts []string
	if l >= trimQuiet {
		parts = append(parts, "the list of passing and skipped checks")
	}
	if l >= trimWarnExcerpt {
		parts = append(parts, "evidence excerpts of warnings")
	}
	if l >= trimWarnDetails {
		parts = append(parts, "detail lines of warnings")
	}
	if l >= trimEffectDetails {
		parts = append(parts, "detail lines of consequences")
	}
	if l >= trimEffectExcerpts {
		parts = append(parts, "evidence excerpts of consequences")
	}
	if l >= trimAllDetails {
		parts = append(parts, "every detail line")
	}
	switch {
	case l >= trimAllExcerpts:
		parts = append(parts, "every evidence excerpt (the evidence paths stay)")
	case l >= trimExtraExcerpts:
		parts = append(parts, "all but the first evidence excerpt of each failure")
	}
	for _, c := range []struct {
		at   trimLevel
		what string
	}{
		{trimWarnFixes, "the commands and notes of warnings' fixes"},
		{trimFixNotes, "the notes of every fix"},
		{trimEffectFixes, "the commands of consequences' fixes (fixing their cause clears them)"},
		{trimQuietRows, "the summary rows of nodes that pass"},
		{trimWarnNodes, "the node lists of warnings"},
		{trimNodeTable, "the per-node table"},
		{trimRootSummary, "the root causes' summaries (their findings have them)"},
		{trimFixCommands, "every fix's commands (-o json has them)"},
	} {
		if l >= c.at {
			parts = append(parts, c.what)
		}
	}
	return strings.Join(parts, ", ")
}
