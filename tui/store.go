package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// nodeState is where a node is in its sweep.
type nodeState int

const (
	nodeIdle    nodeState = iota // not in a sweep (never probed, judged, or cancelled)
	nodeQueued                   // in a sweep that has not reached it yet
	nodeRunning                  // its sweep is running (between NodeStarted and NodeJudged)
)

// node is one row of the node list, with everything the view needs precomputed when
// events arrive, so View only slices and pads.
type node struct {
	name      string
	state     nodeState
	sweep     int // the sweep that owns it while queued or running
	judged    bool
	cancelled bool
	err       string // collection error (unreachable), one line
	via       string // the transport that answered its last sweep (--transport auto picks per node)

	findings []probes.Finding // report order: root causes first, consequences folded under them
	causes   [][]probes.Ref   // per finding: the findings of this node that explain it
	clears   [][]probes.Ref   // per finding: what fixing it should also clear
	hay      []string         // lower-cased "probe status summary" per finding, for the filter
	counts   [probes.Error + 1]int
	worst    probes.Status // what the row's glyph shows: skips alongside passes read as ✓
	note     string        // right-hand side of the row: "2✗ 1!", "probing", "cancelled"
	os       string        // "linux" or "windows" once judged (nodeos.go)
}

func (n *node) label() string { return report.NodeLabel(n.name) }

// setFindings replaces the node's findings and recomputes its summary.
func (n *node) setFindings(fs []probes.Finding) {
	// Link again under the names shown: a fleet relabels nodes after the engine linked
	// them, and a finding must point at what this screen lists.
	fs = slices.Clone(fs)
	engine.Link(probes.CauseRules(), fs)
	n.findings = report.Sort(fs)
	g := probes.NewGraph(n.findings)
	n.causes = make([][]probes.Ref, len(n.findings))
	n.clears = make([][]probes.Ref, len(n.findings))
	for i, f := range n.findings {
		if f.Status >= probes.Warn {
			n.causes[i] = g.Causes(f)
			n.clears[i] = g.Clears(f.Ref())
		}
	}
	n.hay = make([]string, len(n.findings))
	n.counts = [probes.Error + 1]int{}
	n.worst = probes.Pass
	for i, f := range n.findings {
		n.hay[i] = strings.ToLower(f.Probe + " " + f.Status.String() + " " + f.Summary)
		if f.Status >= probes.Pass && f.Status <= probes.Error {
			n.counts[f.Status]++
		}
		n.worst = max(n.worst, f.Status)
	}
	if n.worst == probes.Skip && n.counts[probes.Pass] > 0 {
		n.worst = probes.Pass
	}
	n.judged = true
	n.refresh()
}

// refresh recomputes the note after a state change.
func (n *node) refresh() {
	switch {
	case n.state == nodeRunning:
		n.note = "probing"
	case n.state == nodeQueued:
		n.note = "pending"
	case n.cancelled:
		n.note = "cancelled"
	case n.err != "":
		n.note = "unreachable"
	case !n.judged:
		n.note = "not probed"
	default:
		var parts []string
		for _, st := range []probes.Status{probes.Fail, probes.Error, probes.Warn} {
			if c := n.counts[st]; c > 0 {
				parts = append(parts, fmt.Sprintf("%d%s", c, st.Glyph()))
			}
		}
		n.note = strings.Join(parts, " ")
		if n.note == "" {
			n.note = "ok"
		}
	}
}

// store holds every node, the totals for the header and the filter result. It is
// shared by copies of the Model (a pointer) and changed only from Update.
type store struct {
	nodes  []*node // sorted by name, cluster-wide ("") first
	mixed  bool    // a Linux node was judged: rows show each node's kind
	byName map[string]int
	totals [probes.Error + 1]int // findings by status over all nodes

	query   string // lower-cased filter
	visible []int  // indexes into nodes that pass the filter
}

func newStore(names []string) *store {
	s := &store{byName: map[string]int{}}
	for _, n := range names {
		if _, ok := s.byName[n]; !ok {
			s.nodes = append(s.nodes, &node{name: n})
			s.byName[n] = 0
		}
	}
	slices.SortFunc(s.nodes, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	s.reindex()
	for _, n := range s.nodes {
		n.refresh()
	}
	s.refilter()
	return s
}

func (s *store) reindex() {
	for i, n := range s.nodes {
		s.byName[n.name] = i
	}
}

// get returns the named node, adding it (in name order) when unknown; added reports that
// indexes moved.
func (s *store) get(name string) (n *node, added bool) {
	if i, ok := s.byName[name]; ok {
		return s.nodes[i], false
	}
	n = &node{name: name}
	n.refresh()
	i, _ := slices.BinarySearchFunc(s.nodes, name, func(a *node, t string) int { return strings.Compare(a.name, t) })
	s.nodes = slices.Insert(s.nodes, i, n)
	s.reindex()
	return n, true
}

// judge stores a node's findings and keeps the totals in step.
func (s *store) judge(n *node, fs []probes.Finding) {
	for st, c := range n.counts {
		s.totals[st] -= c
	}
	n.setFindings(fs)
	for st, c := range n.counts {
		s.totals[st] += c
	}
}

// replace swaps the finding of the same probe (or adds it), as after a fix.
func (s *store) replace(n *node, f probes.Finding) {
	fs := slices.Clone(n.findings)
	if i := slices.IndexFunc(fs, func(g probes.Finding) bool { return g.Probe == f.Probe }); i >= 0 {
		fs[i] = f
	} else {
		fs = append(fs, f)
	}
	s.judge(n, fs)
}

// setQuery changes the filter and recomputes the visible nodes.
func (s *store) setQuery(q string) {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == s.query {
		return
	}
	s.query = q
	s.refilter()
}

// refilter recomputes the visible nodes; called when the query or a node changes.
func (s *store) refilter() {
	s.visible = s.visible[:0]
	for i, n := range s.nodes {
		if s.matchNode(n) {
			s.visible = append(s.visible, i)
		}
	}
}

// matchNode: the filter matches a node's name, or any of its findings' probe ID,
// status word or summary.
func (s *store) matchNode(n *node) bool {
	if s.query == "" || strings.Contains(strings.ToLower(n.label()), s.query) {
		return true
	}
	for _, h := range n.hay {
		if strings.Contains(h, s.query) {
			return true
		}
	}
	return false
}

// findingsOf lists the indexes of a node's findings that the filter shows: all of them
// when the node's name matches, else those that match.
func (s *store) findingsOf(n *node) []int {
	all := s.query == "" || strings.Contains(strings.ToLower(n.label()), s.query)
	out := make([]int, 0, len(n.findings))
	for i, h := range n.hay {
		if all || strings.Contains(h, s.query) {
			out = append(out, i)
		}
	}
	return out
}

// progress counts nodes by state, for the header.
func (s *store) progress() (judged, running, total int) {
	for _, n := range s.nodes {
		if n.judged {
			judged++
		}
		if n.state != nodeIdle {
			running++
		}
	}
	return judged, running, len(s.nodes)
}
