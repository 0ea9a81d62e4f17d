package report

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// bigFleet is the sample findings on 40 copies of its nodes, each copy's failures worded
// apart so no two fold into one entry: a fleet whose Markdown no excerpt trimming fits.
func bigFleet() []probes.Finding {
	var out []probes.Finding
	for i := range 40 {
		for _, f := range sampleFindings() {
			if f.Node != "" {
				old := f.Node
				f.Node = fmt.Sprintf("%s-%02d", old, i)
				ev := make([]string, len(f.Evidence))
				for j, e := range f.Evidence {
					ev[j] = strings.Replace(e, "nodes/"+old+"/", "nodes/"+f.Node+"/", 1)
				}
				f.Evidence = ev
				for j, c := range f.CausedBy {
					if c.Node == old {
						f.CausedBy[j].Node = f.Node
					}
				}
			} else if i > 0 {
				continue // the cluster-wide finding is one
			}
			if f.Status >= probes.Fail {
				f.Summary = fmt.Sprintf("%s (copy %d)", f.Summary, i)
			}
			out = append(out, f)
		}
	}
	return out
}

// TestMarkdownMaxSizeBigFleet: past every excerpt, the trim cuts warnings' fix commands,
// fix notes, consequences' commands, passing nodes' rows and warnings' node lists, then
// the node table, the root causes' summaries and last every fix's commands; it says so,
// and is smaller for it; each failure keeps its evidence and its fix's title and, until
// the last resort, a root cause keeps the fix's commands.
func TestMarkdownMaxSizeBigFleet(t *testing.T) {
	fs := bigFleet()
	opt := Options{Excerpts: sampleExcerpts(), MaxSize: 1}
	floor := render(t, Markdown, sampleMeta, fs, opt)
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	writeMarkdownAt(bw, sampleMeta, Sort(fs), opt, trimAllExcerpts)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	var before strings.Builder
	bw = bufio.NewWriter(&before)
	writeMarkdownAt(bw, sampleMeta, Sort(fs), opt, trimFixCommands-1)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	beforeLast := before.String()
	if len(floor) >= b.Len() {
		t.Errorf("the last trim levels save nothing: %d bytes, %d without them", len(floor), b.Len())
	}
	if !strings.Contains(floor, trimLast.said()) {
		t.Errorf("the trim note does not say what went:\n%.600s", floor)
	}
	g := probes.NewGraph(fs)
	for _, f := range fs {
		if f.Fix == nil || f.Status < probes.Warn {
			continue
		}
		failing := f.Status >= probes.Fail
		for _, e := range f.Evidence {
			if failing && !strings.Contains(floor, codeSpan(e)) {
				t.Errorf("%s on %s: evidence %s trimmed", f.Probe, f.Node, e)
			}
		}
		if failing && !strings.Contains(floor, mdInline(f.Fix.Title)) {
			t.Errorf("%s on %s: fix trimmed", f.Probe, f.Node)
		}
		if len(f.Fix.Commands) == 0 {
			continue
		}
		// Up to the last resort only the root causes keep their fix's commands; the last
		// resort cuts them all.
		root := failing && len(g.Causes(f)) == 0
		if has := strings.Contains(beforeLast, f.Fix.Commands[0]); has != root {
			t.Errorf("%s on %s (%s, root %v): its fix's commands shown: %v", f.Probe, f.Node, f.Status, root, has)
		}
		if strings.Contains(floor, f.Fix.Commands[0]) {
			t.Errorf("%s on %s: the last resort kept its fix's commands", f.Probe, f.Node)
		}
	}
}
