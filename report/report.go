// Package report renders findings for the headless front end, the snapshot bundle and
// support tickets: text for a terminal, markdown to paste into a ticket, JSON that
// `analyze` and `diff` read back, and JUnit XML for CI. It also owns the exit codes.
//
// Every writer orders findings the same way (see Sort) so output is stable and goldens
// stay byte-identical between runs.
package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Meta is the context shown in report headers. Every field is optional.
type Meta struct {
	Tool, Version string
	// Source says where the evidence came from: "live cluster ctx-name",
	// "bundle x.tar.gz", "dir fixtures/scenarios/foo".
	Source           string
	Cluster, Context string
	// Reached says how each node was reached when the transport was chosen per node
	// (--transport auto), ReachedLine's "win-1 over hostprocess (winrm-https: ...); ...".
	// Empty: not shown. A string keeps Meta comparable.
	Reached string
	// Time is when the evidence was collected; the zero value is omitted so goldens
	// and reproducible bundles stay stable.
	Time time.Time
}

// Options tune rendering. The zero value is plain text without colour.
type Options struct {
	// Color adds ANSI colour to text output. Glyphs carry the meaning either way.
	Color bool
	// Verbose includes passing and skipped findings' details in text output.
	Verbose bool
	// Excerpts maps an evidence path to an excerpt of it, which markdown shows under the
	// findings that cite that path. The caller fills it (this package reads no files);
	// excerpts are cut to ExcerptMaxLines lines and ExcerptMaxBytes bytes.
	Excerpts map[string]string
	// MaxSize, when positive, is the most characters a Markdown report may take: it drops
	// the least important parts first (the passing list, warnings' excerpts, warnings'
	// details, consequences' details, consequences' excerpts, every detail line, all but each
	// failure's first excerpt, then every excerpt) and
	// says what it dropped. Every failing finding keeps its evidence paths and its fix.
	MaxSize int
	// NodeOS is each node's kind ("linux", "windows") when a run mixes Linux and Windows
	// nodes, so text and Markdown headings tell them apart; nil shows names alone.
	NodeOS map[string]string
}

// nodeHeading is a node's label with its kind, when the run mixes kinds.
func (o Options) nodeHeading(node string) string {
	if k := o.NodeOS[node]; k != "" && node != "" {
		return NodeLabel(node) + " (" + k + ")"
	}
	return NodeLabel(node)
}

// Exit codes of the headless run. They are part of the CLI contract (README):
//
//	0  ExitOK             nothing at or above the --fail-on status (default fail)
//	1  ExitFindings       at least one finding at or above --fail-on; note Error ranks
//	                      above Fail, so with the default an error finding among judged
//	                      ones also exits 1
//	2  ExitUsage          bad flags or unreadable input; returned by the CLI, never by ExitCode
//	3  ExitNothingJudged  nothing could be judged: no findings at all, or every finding
//	                      is an error (say, every node unreachable); this wins
//	                      over 1 so CI can tell "broken" from "could not look"
//	130 ExitInterrupted   stopped by Ctrl-C or SIGTERM; nothing was written (128 +
//	                      SIGINT, as a shell reports it); returned by the CLI
const (
	ExitOK            = 0
	ExitFindings      = 1
	ExitUsage         = 2
	ExitNothingJudged = 3
	ExitInterrupted   = 130
)

// TicketSize is the default most characters of a Markdown report: what a GitHub issue or
// comment body accepts (65,536), the largest common ticket limit.
const TicketSize = 65536

// DefaultFailOn is the --fail-on default: warnings alone do not fail a run.
const DefaultFailOn = probes.Fail

// ExitCode maps findings to the process exit code; see ExitOK and friends.
func ExitCode(findings []probes.Finding, failOn probes.Status) int {
	judged, hit := false, false
	for _, f := range findings {
		if f.Status != probes.Error {
			judged = true
		}
		if f.Status >= failOn {
			hit = true
		}
	}
	switch {
	case !judged:
		return ExitNothingJudged
	case hit:
		return ExitFindings
	default:
		return ExitOK
	}
}

// Counts tallies findings by status. Statuses with no findings are absent (reads as 0).
func Counts(findings []probes.Finding) map[probes.Status]int {
	c := map[probes.Status]int{}
	for _, f := range findings {
		c[f.Status]++
	}
	return c
}

// NodeRow is one node's line in a summary table.
type NodeRow struct {
	Node   string // "" for cluster-wide findings; show it with NodeLabel
	Worst  probes.Status
	Counts map[probes.Status]int
}

// NodeSummary returns one row per node in report order (cluster-wide first, then by name).
func NodeSummary(findings []probes.Finding) []NodeRow {
	var rows []NodeRow
	for _, g := range groupByNode(Sort(findings)) {
		rows = append(rows, NodeRow{Node: g.node, Worst: g.worst(), Counts: Counts(g.findings)})
	}
	return rows
}

// NodeLabel is how a node is named in reports. Cluster-wide findings get a label that
// cannot collide with a real node: node names are DNS subdomains and cannot hold parentheses.
func NodeLabel(node string) string {
	if node == "" {
		return "(cluster-wide)"
	}
	return node
}

// Sort returns a sorted copy in probes.Compare's order, then within a node root causes
// first, each followed by the consequences it explains (CausedBy). Ties keep their input
// order so a probe's own ordering survives. The engine hands out its results in this
// order too (engine.Sort), so every front end shows one order.
func Sort(findings []probes.Finding) []probes.Finding {
	out := slices.Clone(findings)
	slices.SortStableFunc(out, probes.Compare)
	g := probes.NewGraph(out)
	folded := out[:0:0]
	for _, grp := range groupByNode(out) {
		folded = append(folded, foldByCause(g, grp.findings)...)
	}
	return folded
}

type nodeGroup struct {
	node     string
	findings []probes.Finding
}

func (g nodeGroup) worst() probes.Status {
	w := probes.Pass
	for _, f := range g.findings {
		w = max(w, f.Status)
	}
	return w
}

// groupByNode splits sorted findings into runs of one node each.
func groupByNode(sorted []probes.Finding) []nodeGroup {
	var gs []nodeGroup
	for _, f := range sorted {
		if len(gs) == 0 || gs[len(gs)-1].node != f.Node {
			gs = append(gs, nodeGroup{node: f.Node})
		}
		gs[len(gs)-1].findings = append(gs[len(gs)-1].findings, f)
	}
	return gs
}

// nodeCount counts real nodes; cluster-wide findings are not a node.
func nodeCount(findings []probes.Finding) int {
	seen := map[string]bool{}
	for _, f := range findings {
		if f.Node != "" {
			seen[f.Node] = true
		}
	}
	return len(seen)
}

// summaryLine is the closing tally shared by text and markdown. Skips are mentioned
// only when present, to keep the common line short.
func summaryLine(findings []probes.Finding) string {
	c := Counts(findings)
	n := nodeCount(findings)
	s := fmt.Sprintf("%d %s, %d fail, %d warn, %d error, %d pass", n, plural(n, "node", "nodes"),
		c[probes.Fail], c[probes.Warn], c[probes.Error], c[probes.Pass])
	if c[probes.Skip] > 0 {
		s += fmt.Sprintf(", %d skip", c[probes.Skip])
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// metaParts is the header context as label/value pairs, empty fields left out.
func metaParts(m Meta) [][2]string {
	var ps [][2]string
	add := func(k, v string) {
		if v != "" {
			ps = append(ps, [2]string{k, v})
		}
	}
	add("version", m.Version)
	add("source", m.Source)
	add("cluster", m.Cluster)
	add("context", m.Context)
	add("reached", m.Reached)
	if !m.Time.IsZero() {
		add("time", m.Time.Format(time.RFC3339))
	}
	return ps
}

// ReachedLine is how each node was reached, in one line by node name, for Meta.Reached:
// "win-1 over hostprocess (...); win-2 over ssh".
func ReachedLine(r map[string]string) string {
	nodes := make([]string, 0, len(r))
	for n := range r {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = n + " over " + r[n]
	}
	return strings.Join(parts, "; ")
}

func toolName(m Meta) string { return cmp.Or(m.Tool, "wintroubleshoot") }
