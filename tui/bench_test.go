package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// bigFindings is nodes x per findings with a mix of statuses, fixes and evidence.
func bigFindings(nodes, per int) (map[string][]probes.Finding, []string) {
	out := map[string][]probes.Finding{}
	var names []string
	statuses := []probes.Status{probes.Pass, probes.Pass, probes.Pass, probes.Warn, probes.Fail, probes.Skip, probes.Error}
	for i := range nodes {
		name := fmt.Sprintf("akswin%06d", i)
		names = append(names, name)
		for j := range per {
			st := statuses[(i+j)%len(statuses)]
			f := probes.Finding{
				Probe: fmt.Sprintf("PROBE-%02d", j), Node: name, Status: st,
				Summary:  fmt.Sprintf("check %d on %s is %s with a summary long enough to be cut at 80 columns", j, name, st),
				Details:  []string{"expected: something specific", fmt.Sprintf("actual: something else (%d)", i*j)},
				Evidence: []string{fmt.Sprintf("nodes/%s/file-%02d.json", name, j)},
			}
			if st >= probes.Warn {
				f.Fix = &probes.Fix{ID: "fix", Title: "Do the thing", Kind: probes.NodeScript, Commands: []string{"Do-Thing -Now"}, Verify: f.Probe}
			}
			out[name] = append(out[name], f)
		}
	}
	return out, names
}

// bigModel is a swept 500-node model at 120x40.
func bigModel(tb testing.TB, nodes, per int) Model {
	tb.Helper()
	fs, names := bigFindings(nodes, per)
	m := testModel(tb, Options{Nodes: names, Backend: newFakeBackend(fs)}, 120, 40)
	return started(tb, m)
}

// BenchmarkKeyPress: one j on the node list of 500 nodes x 20 findings, Update + View.
func BenchmarkKeyPress(b *testing.B) {
	m := bigModel(b, 500, 20)
	k := runeKey('j')
	last := len(m.store.visible) - 1
	b.ReportAllocs()
	for b.Loop() {
		if m.nodes.pos == last {
			m.nodes.pos = 0
		}
		mm, _ := m.Update(k)
		m = mm.(Model)
		_ = m.View()
	}
}

// BenchmarkFilterKey: one character typed into the filter over 500 x 20, Update + View.
func BenchmarkFilterKey(b *testing.B) {
	m := press(b, bigModel(b, 500, 20), runeKey('/')).Model
	keys := []tea.KeyPressMsg{runeKey('f'), runeKey('a'), {Code: tea.KeyBackspace}, {Code: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mm, _ := m.Update(keys[i%len(keys)])
		m = mm.(Model)
		_ = m.View()
		i++
	}
}

// BenchmarkSweep500: a whole 500 x 20 sweep through the event channel into the model.
func BenchmarkSweep500(b *testing.B) {
	fs, names := bigFindings(500, 20)
	be := newFakeBackend(fs)
	for b.Loop() {
		m := testModel(b, Options{Nodes: names, Backend: be}, 120, 40)
		_ = started(b, m).View()
	}
}

// TestScaleStaysFast guards the benchmark's goal loosely (it runs on slow CI too; the
// race pass, run -short, leaves it out): a key press over 500 x 20 must stay far below a frame budget.
func TestScaleStaysFast(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	m := bigModel(t, 500, 20)
	if len(m.store.nodes) != 500 || m.store.totals[probes.Fail] == 0 {
		t.Fatalf("nodes %d totals %v", len(m.store.nodes), m.store.totals)
	}
	start := time.Now()
	for range 100 {
		mm, _ := m.Update(runeKey('j'))
		m = mm.(Model)
		_ = m.View()
	}
	if per := time.Since(start) / 100; per > 50*time.Millisecond {
		t.Fatalf("a key press takes %v", per)
	}
	// Only visible rows are rendered: the screen holds 40 lines whatever the node count.
	if n := strings.Count(screen(m), "\n") + 1; n != 40 {
		t.Fatalf("%d lines", n)
	}
	mustContain(t, m, "akswin000100", "500 nodes", "500/500 judged")
}

// BenchmarkByFinding: by finding over 500 x 20, one j in the groups list (Update + View),
// and regrouping the whole fleet, as each sweep batch does while grouped.
func BenchmarkByFinding(b *testing.B) {
	m := press(b, bigModel(b, 500, 20), runeKey('b')).Model
	b.Run("key", func(b *testing.B) {
		k := runeKey('j')
		b.ReportAllocs()
		for b.Loop() {
			if m.byF.groups.pos == len(m.byF.data)-1 {
				m.byF.groups.pos = 0
			}
			mm, _ := m.Update(k)
			m = mm.(Model)
			_ = m.View()
		}
	})
	b.Run("regroup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.refilter()
		}
	})
}
