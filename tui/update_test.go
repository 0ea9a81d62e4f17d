package tui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func TestPendingThenJudged(t *testing.T) {
	m, _, _, _ := standard(t)
	for _, n := range m.store.nodes {
		if n.judged || n.state != nodeQueued {
			t.Fatalf("%s before Init: judged=%v state=%v", n.name, n.judged, n.state)
		}
	}
	mustContain(t, m, "· win-a", "· win-b", "· win-c", "pending")

	m = started(t, m)
	want := map[string]probes.Status{"win-a": probes.Fail, "win-b": probes.Error, "win-c": probes.Pass}
	for _, n := range m.store.nodes {
		if !n.judged || n.state != nodeIdle || n.worst != want[n.name] {
			t.Errorf("%s: judged=%v state=%v worst=%v, want %v", n.name, n.judged, n.state, n.worst, want[n.name])
		}
	}
	if got := m.store.nodes[1].err; !strings.Contains(got, "connection refused") {
		t.Errorf("win-b err = %q", got)
	}
	if m.store.totals[probes.Fail] != 2 || m.store.totals[probes.Pass] != 4 || m.store.totals[probes.Error] != 1 {
		t.Errorf("totals = %v", m.store.totals)
	}
	if len(m.sweeps) != 0 {
		t.Errorf("sweeps still running: %d", len(m.sweeps))
	}
	mustContain(t, m, "✗ win-a", "? win-b", "✓ win-c", "unreachable", "✗ 2 fail", "3/3 judged")
}

func TestMoveSelection(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	steps := []struct {
		key  tea.KeyPressMsg
		node string
	}{
		{runeKey('j'), "win-b"}, {kDown, "win-c"}, {runeKey('j'), "win-c"},
		{runeKey('k'), "win-b"}, {kUp, "win-a"}, {kUp, "win-a"},
		{kShiftG, "win-c"}, {runeKey('g'), "win-a"},
	}
	for _, s := range steps {
		m = press(t, m, s.key).Model
		if got := m.selectedNode().name; got != s.node {
			t.Fatalf("after %q: node %s, want %s", s.key.String(), got, s.node)
		}
	}
	m = press(t, m, runeKey('j')).Model
	f, ok := m.selectedFinding()
	if !ok || f.Probe != probes.ReachID {
		t.Fatalf("win-b selected finding = %v %v", f.Probe, ok)
	}
	mustContain(t, m, "Detail · REACH", "connection refused")
}

func TestTabCyclesPanes(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	order := []focus{focusFindings, focusDetail, focusNodes, focusFindings}
	for _, want := range order {
		m = press(t, m, kTab).Model
		if m.focus != want {
			t.Fatalf("tab: focus %v, want %v", m.focus, want)
		}
	}
	m = press(t, m, kShiftTab, kShiftTab).Model
	if m.focus != focusDetail {
		t.Fatalf("shift+tab twice from findings: focus %v, want detail", m.focus)
	}
	m = press(t, m, kTab, kEnter).Model // nodes, then enter opens findings
	if m.focus != focusFindings {
		t.Fatalf("enter on nodes: focus %v, want findings", m.focus)
	}
}

func TestFindingsAndDetailKeys(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	m = press(t, m, kTab).Model // HNS-NETWORK leads: it explains HNS-KPROXY-NET
	if f, _ := m.selectedFinding(); f.Probe != "HNS-NETWORK" {
		t.Fatalf("first in findings: %s", f.Probe)
	}
	m = press(t, m, runeKey('j')).Model
	if f, _ := m.selectedFinding(); f.Probe != "HNS-KPROXY-NET" {
		t.Fatalf("j in findings: %s, want the consequence folded under its cause", f.Probe)
	}
	m = press(t, m, runeKey('k')).Model
	// The root cause says what its fix should also clear; the fix is further down.
	mustContain(t, m, "Detail · HNS-NETWORK", "Root cause", "fixing this should also clear: HNS-KPROXY-NET", "expected: an overlay network")
	m = press(t, m, kShiftG).Model
	if f, _ := m.selectedFinding(); f.Probe != "SVC-KUBELET" {
		t.Fatalf("G in findings: %s", f.Probe)
	}
	m = press(t, m, runeKey('g'), kTab).Model // HNS-NETWORK, detail focused
	if m.detail.vp.YOffset() != 0 {
		t.Fatal("detail not at top")
	}
	m = press(t, m, runeKey('j'), runeKey('j')).Model
	if m.detail.vp.YOffset() != 2 {
		t.Fatalf("detail j j: offset %d, want 2", m.detail.vp.YOffset())
	}
	m = press(t, m, kShiftG).Model
	if !m.detail.vp.AtBottom() {
		t.Fatal("G in detail: not at bottom")
	}
	m = press(t, m, runeKey('g')).Model
	if !m.detail.vp.AtTop() {
		t.Fatal("g in detail: not at top")
	}
}

func TestFilter(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	cases := []struct {
		query string
		nodes []string
	}{
		{"win-c", []string{"win-c"}},              // node name
		{"img-pause", []string{"win-a"}},          // probe ID, any case
		{"error", []string{"win-b"}},              // status word
		{"connection refused", []string{"win-b"}}, // summary
		{"pass", []string{"win-a", "win-c"}},
		{"nothing-like-this", nil},
	}
	for _, c := range cases {
		d := press(t, m, append([]tea.KeyPressMsg{runeKey('/')}, typeText(c.query)...)...)
		if !d.filtering {
			t.Fatalf("%q: not in the filter prompt", c.query)
		}
		var got []string
		for _, i := range d.store.visible {
			got = append(got, d.store.nodes[i].name)
		}
		if !slices.Equal(got, c.nodes) {
			t.Errorf("filter %q: nodes %v, want %v", c.query, got, c.nodes)
		}
		// esc in the prompt clears the filter.
		cleared := press(t, d.Model, kEsc).Model
		if cleared.filtering || cleared.store.query != "" || len(cleared.store.visible) != 3 {
			t.Errorf("%q: esc did not clear: filtering=%v query=%q visible=%d", c.query, cleared.filtering, cleared.store.query, len(cleared.store.visible))
		}
	}

	// enter keeps the filter; the findings pane shows the matching findings only.
	m = press(t, m, append(append([]tea.KeyPressMsg{runeKey('/')}, typeText("pass")...), kEnter)...).Model
	if m.filtering || m.store.query != "pass" {
		t.Fatalf("enter: filtering=%v query=%q", m.filtering, m.store.query)
	}
	if len(m.finds.items) != 2 {
		t.Errorf("win-a findings under /pass: %d, want 2", len(m.finds.items))
	}
	mustContain(t, m, "Nodes 2/3 /pass", "2/5")
	// esc on the main screen clears it when nothing runs.
	m = press(t, m, kEsc).Model
	if m.store.query != "" || len(m.store.visible) != 3 || len(m.finds.items) != 5 {
		t.Fatalf("esc: query=%q visible=%d findings=%d", m.store.query, len(m.store.visible), len(m.finds.items))
	}
}

func TestReprobeNode(t *testing.T) {
	m, be, _, _ := standard(t)
	m = started(t, m)
	be.findings["win-b"] = []probes.Finding{{Probe: probes.ReachID, Node: "win-b", Status: probes.Pass, Summary: "reachable"}}
	delete(be.errs, "win-b")
	m = press(t, m, runeKey('j'), runeKey('r')).Model
	calls := be.probeCalls()
	if last := calls[len(calls)-1]; !slices.Equal(last, []string{"win-b"}) {
		t.Fatalf("r probed %v, want [win-b]", last)
	}
	n := m.selectedNode()
	if n.worst != probes.Pass || n.err != "" || n.state != nodeIdle {
		t.Fatalf("win-b after r: worst=%v err=%q state=%v", n.worst, n.err, n.state)
	}
	mustContain(t, m, "re-probed win-b", "✓ win-b")
}

func TestReprobeWhileRunning(t *testing.T) {
	m, _, _, _ := standard(t)
	// The initial sweep is queued but not run: the selected node is busy.
	m = press(t, m, runeKey('r')).Model
	if !strings.Contains(m.status, "already being probed") {
		t.Fatalf("status = %q", m.status)
	}
}

func TestReprobeAll(t *testing.T) {
	m, be, _, _ := standard(t)
	m = started(t, m)
	be.findings["win-c"] = append(be.findings["win-c"], probes.Finding{Probe: "NET-ROUTES", Node: "win-c", Status: probes.Warn, Summary: "one route missing"})
	m = press(t, m, kShiftR).Model
	calls := be.probeCalls()
	if len(calls) != 2 || calls[1] != nil {
		t.Fatalf("calls = %v, want a second sweep of all nodes", calls)
	}
	if m.store.totals[probes.Warn] != 2 {
		t.Fatalf("warn total after R = %d, want 2", m.store.totals[probes.Warn])
	}
	mustContain(t, m, "! win-c", "sweep done: 3/3")
}

func TestHelpOverlay(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	m = press(t, m, runeKey('?')).Model
	if !m.showHelp {
		t.Fatal("? did not open help")
	}
	mustContain(t, m, "Help", "re-probe all", "snapshot", "ctrl+c")
	m = press(t, m, runeKey('j')).Model // keys other than close do nothing
	if !m.showHelp || m.selectedNode().name != "win-a" {
		t.Fatal("j under help changed something")
	}
	if m = press(t, m, runeKey('?')).Model; m.showHelp {
		t.Fatal("? did not close help")
	}
	if m = press(t, m, runeKey('?'), kEsc).Model; m.showHelp {
		t.Fatal("esc did not close help")
	}
}

func TestQuitCancelsEverything(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{runeKey('q'), kCtrlC} {
		m, _, _, _ := standard(t)
		sweeps := make([]*sweep, 0, len(m.sweeps))
		for _, s := range m.sweeps {
			sweeps = append(sweeps, s)
		}
		d := press(t, m, k)
		if !d.quit {
			t.Fatalf("%s did not quit", k.String())
		}
		for _, s := range sweeps {
			if s.ctx.Err() == nil {
				t.Fatalf("%s left a sweep running", k.String())
			}
		}
		if d.View().Content != "" {
			t.Fatalf("%s: view after quit is not empty", k.String())
		}
	}
	// ctrl+c quits from inside the filter prompt too; q there is just a letter.
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	d := press(t, m, runeKey('/'), runeKey('q'))
	if d.quit || d.filter.Value() != "q" {
		t.Fatalf("q in the prompt: quit=%v value=%q", d.quit, d.filter.Value())
	}
	if d = press(t, d.Model, kCtrlC); !d.quit {
		t.Fatal("ctrl+c in the prompt did not quit")
	}
}

func TestResizeAndBackground(t *testing.T) {
	m := started(t, func() Model { m, _, _, _ := standard(t); return m }())
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {200, 60}, {60, 16}} {
		mm, _ := m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = mm.(Model)
		lines := strings.Split(screen(m), "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w != sz[0] {
				t.Fatalf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, l)
			}
		}
	}
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
	mustContain(t, mm.(Model), "needs at least 60x16")

	mm, _ = m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#ffffff")})
	if mm.(Model).dark {
		t.Fatal("white background read as dark")
	}
	mm, _ = mm.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#000000")})
	if !mm.(Model).dark {
		t.Fatal("black background read as light")
	}
}

func TestNoColor(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	colour := func() string {
		m := New(Options{Nodes: []string{"win-a"}, Backend: be})
		m.animate = false
		return drive(t, m, m.Init()).View().Content
	}
	t.Setenv("NO_COLOR", "")
	if s := colour(); !strings.Contains(s, "38;") {
		t.Fatal("colour view has no colour")
	}
	t.Setenv("NO_COLOR", "1")
	if s := colour(); strings.Contains(s, "38;") || strings.Contains(s, "48;") {
		t.Fatalf("NO_COLOR view sets colours:\n%q", s)
	}
}

func TestStopCancelsRunningWork(t *testing.T) {
	m, _, _, _ := standard(t)
	var ss []*sweep
	for _, s := range m.sweeps {
		ss = append(ss, s)
	}
	m.Stop()
	for _, s := range ss {
		if s.ctx.Err() == nil {
			t.Fatal("Stop left a sweep running")
		}
	}
}

// Text from a node never reaches the terminal as control sequences.
func TestNodeTextIsSanitised(t *testing.T) {
	fs := map[string][]probes.Finding{"win-x": {{Probe: "EVIL", Node: "win-x", Status: probes.Fail,
		Summary: "red \x1b[31malert\x1b[0m\x07 \x1b]52;c;aGk=\x07done\r", Details: []string{"tab\there"}}}}
	m := started(t, testModel(t, Options{Nodes: []string{"win-x"}, Backend: newFakeBackend(fs)}, 80, 24))
	raw := m.View().Content
	for _, bad := range []string{"\x1b[31m", "\x07", "\x1b]52", "\r"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("view passes %q through", bad)
		}
	}
	mustContain(t, m, "red alert done", "tab    here")
}

// TestMixedFleetShowsKinds: once a Linux node (its os.json) is judged, its row says so
// before its note; Windows rows and a fleet without Linux nodes show no marker.
func TestMixedFleetShowsKinds(t *testing.T) {
	fs := map[string][]probes.Finding{
		"node-1": {{Probe: "LINUX-SWAP", Node: "node-1", Status: probes.Fail, Summary: "swap is on"}},
		"win-1":  {{Probe: "HOST-UPTIME", Node: "win-1", Status: probes.Pass, Summary: "ok"}},
	}
	be := newFakeBackend(fs)
	m := started(t, testModel(t, Options{Nodes: []string{"node-1", "win-1"}, Backend: be}, 80, 24))
	mustContain(t, m, "✗ node-1", "✓ win-1")
	mustNotContain(t, m, "lnx ")

	be = newFakeBackend(fs)
	be.evidence["nodes/node-1/os.json"] = []byte(`{"Kind":"linux","Hostname":"node-1"}` + "\n")
	m = started(t, testModel(t, Options{Nodes: []string{"node-1", "win-1"}, Backend: be}, 80, 24))
	mustContain(t, m, "lnx 1✗")
	for _, line := range strings.Split(screen(m), "\n") {
		if strings.Contains(line, "win-1") && strings.Contains(line, "lnx") {
			t.Errorf("the Windows row is marked Linux: %q", line)
		}
	}
}
