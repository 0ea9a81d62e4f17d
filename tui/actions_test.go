package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// selectFinding puts the cursor on probe of the selected node (findings pane focused).
func selectFinding(t *testing.T, m Model, probe string) Model {
	t.Helper()
	m.focus = focusFindings
	m = press(t, m, runeKey('g')).Model
	for range 10 {
		if f, _ := m.selectedFinding(); f.Probe == probe {
			return m
		}
		m = press(t, m, runeKey('j')).Model
	}
	t.Fatalf("no finding %s", probe)
	return m
}

// atFinding is a fresh, swept model with probe selected. Models share their store and
// dialog (pointers), so each branch of a test starts from its own.
func atFinding(t *testing.T, probe string) (Model, *fakeFixer) {
	t.Helper()
	m, _, fx, _ := standard(t)
	return selectFinding(t, started(t, m), probe), fx
}

func TestFixConfirmAndVerify(t *testing.T) {
	m, fx := atFinding(t, "HNS-NETWORK")

	// f shows the preview; n cancels without applying.
	d := press(t, m, runeKey('f'))
	if d.dlg == nil || d.dlg.step != stepConfirm {
		t.Fatalf("f: dialog %+v", d.dlg)
	}
	mustContain(t, d.Model, "Fix: Start flanneld", "$ Start-Service -Name 'flanneld'", "Apply this fix?")
	mustNotContain(t, d.Model, "DISRUPTIVE")
	if d = press(t, d.Model, runeKey('n')); d.dlg != nil || len(fx.applied) != 0 {
		t.Fatalf("n: dialog open=%v applied=%d", d.dlg != nil, len(fx.applied))
	}
	if d = press(t, d.Model, runeKey('f'), kEsc); d.dlg != nil || len(fx.applied) != 0 {
		t.Fatal("esc did not cancel the confirmation")
	}

	// f, y applies, re-verifies, and the node shows the new status.
	d = press(t, d.Model, runeKey('f'), runeKey('y'))
	if len(fx.applied) != 1 || fx.applied[0].Probe != "HNS-NETWORK" {
		t.Fatalf("applied = %v", fx.applied)
	}
	if d.dlg == nil || d.dlg.step != stepResult || d.dlg.failed {
		t.Fatalf("after y: %+v", d.dlg)
	}
	mustContain(t, d.Model, "verified: ✓ HNS-NETWORK fixed: all good now", "re-collecting win-a")
	n := d.selectedNode()
	if n.counts[probes.Fail] != 1 || n.counts[probes.Pass] != 3 {
		t.Fatalf("win-a counts after fix: %v", n.counts)
	}
	if d = press(t, d.Model, kEnter); d.dlg != nil {
		t.Fatal("enter did not close the result")
	}
	if f, _ := d.selectedFinding(); f.Probe != "HNS-NETWORK" || f.Status != probes.Pass {
		t.Fatalf("selection after fix: %s %v", f.Probe, f.Status)
	}
	// enter confirms too.
	m, fx = atFinding(t, "HNS-NETWORK")
	if press(t, m, runeKey('f'), kEnter); len(fx.applied) != 1 {
		t.Fatal("enter did not confirm")
	}
}

// TestFixDisruptiveNeedsNodeName: the screen applies engine.Confirmation, as `fix` does: a
// disruptive fix runs only once the node's name is typed back ("yes" is not enough).
func TestFixDisruptiveNeedsNodeName(t *testing.T) {
	m, fx := atFinding(t, "HNS-KPROXY-NET")
	d := press(t, m, runeKey('f'))
	mustContain(t, d.Model, "DISRUPTIVE: service traffic on this node drops")
	d = press(t, d.Model, runeKey('y'))
	if d.dlg.step != stepTypeName || len(fx.applied) != 0 {
		t.Fatalf("y on a disruptive fix: step=%v applied=%d", d.dlg.step, len(fx.applied))
	}
	mustContain(t, d.Model, "Type the node name (win-a) to run it")
	// Anything but the node name is refused, "yes" included.
	d = press(t, d.Model, append(typeText("yes"), kEnter)...)
	if d.dlg.step != stepTypeName || len(fx.applied) != 0 {
		t.Fatal(`"yes" + enter applied a disruptive fix`)
	}
	mustContain(t, d.Model, "type the node name (win-a) to apply")
	// "n" is a letter here, not a cancel.
	if d = press(t, d.Model, runeKey('n')); d.dlg == nil || d.dlg.input.Value() != "yesn" {
		t.Fatal("n closed the confirmation")
	}
	if e := press(t, d.Model, kEsc); e.dlg != nil || len(fx.applied) != 0 {
		t.Fatal("esc did not cancel")
	}
	m, fx = atFinding(t, "HNS-KPROXY-NET")
	d = press(t, m, append([]tea.KeyPressMsg{runeKey('f'), runeKey('y')}, append(typeText("win-a"), kEnter)...)...)
	if len(fx.applied) != 1 || d.dlg.step != stepResult || fx.typed[0] != "win-a" {
		t.Fatalf("node name + enter: applied=%d step=%v typed=%q", len(fx.applied), d.dlg.step, fx.typed)
	}
}

// TestFixDrainVerifiedByWarn: a drain is verified by the node showing as cordoned, a
// warn. The screen used to decide success as "the new status is pass" and showed this
// verified drain as "still warn"; it now shows the engine's Result.
func TestFixDrainVerifiedByWarn(t *testing.T) {
	m, fx := atFinding(t, "HNS-NETWORK")
	fx.outcome = &engine.Outcome{Result: engine.Verified, Want: "warn", Reason: "node is cordoned: it takes no new pods",
		After: probes.Finding{Probe: "NODE-SCHEDULING", Node: "win-a", Status: probes.Warn, Summary: "node is cordoned: it takes no new pods"}}
	d := press(t, m, runeKey('f'), runeKey('y'))
	if d.dlg == nil || d.dlg.step != stepResult || d.dlg.failed {
		t.Fatalf("a verified drain reads as a failure: %+v", d.dlg)
	}
	mustContain(t, d.Model, "verified: ! NODE-SCHEDULING node is cordoned")
	mustNotContain(t, d.Model, "still warn")
	if !strings.Contains(d.status, "fixed and verified: NODE-SCHEDULING") {
		t.Errorf("status %q", d.status)
	}
}

func TestFixChoices(t *testing.T) {
	m, fx := atFinding(t, "IMG-PAUSE")
	d := press(t, m, runeKey('f'))
	if d.dlg.step != stepChoose {
		t.Fatalf("step %v, want choose", d.dlg.step)
	}
	mustContain(t, d.Model, "1. Tag the local pause image", "2. Pull the multi-arch image [manual]")
	// The manual choice is never run.
	e := press(t, d.Model, runeKey('j'), kEnter)
	if e.dlg.step != stepResult || !strings.Contains(e.dlg.outcome, "manual") || len(fx.applied) != 0 {
		t.Fatalf("manual choice: %+v applied=%d", e.dlg, len(fx.applied))
	}
	// The first choice previews, applies, and verifies with the parent's probe.
	m, fx = atFinding(t, "IMG-PAUSE")
	e = press(t, m, runeKey('f'), kEnter, runeKey('y'))
	if len(fx.applied) != 1 || fx.applied[0].Fix.ID != "tag-image" || fx.applied[0].Fix.Verify != "IMG-PAUSE" {
		t.Fatalf("applied %+v", fx.applied)
	}
	mustContain(t, e.Model, "verified: IMG-PAUSE")
}

func TestFixStillFailing(t *testing.T) {
	m, fx := atFinding(t, "HNS-NETWORK")
	fx.result = &probes.Finding{Probe: "HNS-NETWORK", Node: "win-a", Status: probes.Fail,
		Summary: "HNS network \"flannel.4096\" is still missing", Details: []string{"flanneld exited: config not found"}}
	d := press(t, m, runeKey('f'), runeKey('y'))
	if !d.dlg.failed {
		t.Fatal("still failing reads as success")
	}
	mustContain(t, d.Model, "not-verified: ✗ HNS-NETWORK", "(want pass, got fail)", "flanneld exited", "output:", "running Start flanneld")

	m, fx = atFinding(t, "HNS-NETWORK")
	fx.err = errors.New("WinRM: access denied")
	d = press(t, m, runeKey('f'), runeKey('y'))
	mustContain(t, d.Model, "failed: WinRM: access denied")
}

func TestFixUnavailableOrNone(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	m := started(t, testModel(t, Options{Nodes: []string{"win-a", "win-c"}, Backend: be}, 80, 24))
	d := press(t, m, runeKey('f'))
	if d.dlg != nil || !strings.Contains(d.status, "unavailable") {
		t.Fatalf("no Fixer: dialog=%v status=%q", d.dlg != nil, d.status)
	}
	mustContain(t, d.Model, "fixes are unavailable")
	// A finding without a fix says so.
	d = press(t, m, runeKey('j'), runeKey('f'))
	if !strings.Contains(d.status, "no fix for") {
		t.Fatalf("status = %q", d.status)
	}
}

func TestFixCancel(t *testing.T) {
	m, fx := atFinding(t, "HNS-NETWORK")
	fx.block = true
	// Step by hand: Apply blocks until its context is cancelled.
	m = press(t, m, runeKey('f')).Model
	mm, cmd := m.Update(runeKey('y'))
	m = mm.(Model)
	if m.dlg.step != stepRunning {
		t.Fatalf("step %v, want running", m.dlg.step)
	}
	mm, next := m.Update(runCmd(t, cmd)) // the first progress line
	m = mm.(Model)
	mustContain(t, m, "applying", "running Start flanneld")
	mm, _ = m.Update(kEsc)
	m = mm.(Model)
	select {
	case err := <-fx.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Apply saw %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Apply never saw the cancellation")
	}
	mm, _ = m.Update(runCmd(t, next)) // Apply's late result changes nothing
	m = mm.(Model)
	if f, _ := m.selectedFinding(); f.Status != probes.Fail {
		t.Fatalf("cancelled fix changed the finding: %v", f.Status)
	}
	mustContain(t, m, "cancelled", "fix cancelled")
	if m = press(t, m, kEsc).Model; m.dlg != nil {
		t.Fatal("esc did not close the cancelled dialog")
	}
}

func TestSnapshot(t *testing.T) {
	m, _, _, sn := standard(t)
	m = started(t, m)
	d := press(t, m, runeKey('s'))
	if d.snap != nil || !strings.Contains(d.status, "snapshot written: /tmp/wintroubleshoot-snapshot.tar.gz") {
		t.Fatalf("after s: snap=%v status=%q", d.snap, d.status)
	}
	var progress int
	for _, msg := range d.msgs {
		if _, ok := msg.(snapProgressMsg); ok {
			progress++
		}
	}
	if progress == 0 {
		t.Fatal("no progress reached the UI")
	}

	// The bar shows while it runs; esc cancels it.
	sn.block = true
	mm, cmd := m.Update(runeKey('s'))
	m = mm.(Model)
	msg := runCmd(t, cmd) // first progress message
	mm, _ = m.Update(msg)
	m = mm.(Model)
	mustContain(t, m, "snapshot ", "1/3", "cluster/nodes.json", "esc cancel")
	mm, _ = m.Update(kEsc)
	m = mm.(Model)
	select {
	case err := <-sn.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Snapshot saw %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Snapshot never saw the cancellation")
	}
	mustContain(t, m, "cancelled snapshot")

	// Without a Snapshotter, s says so.
	be := newFakeBackend(cannedFindings())
	m = testModel(t, Options{Nodes: []string{"win-a"}, Backend: be}, 80, 24)
	if d = press(t, m, runeKey('s')); !strings.Contains(d.status, "unavailable") {
		t.Fatalf("status = %q", d.status)
	}
}

func TestEvidence(t *testing.T) {
	m, be, _, _ := standard(t)
	var gotPath, gotContent string
	type pagerDone struct{}
	m.opts.Pager = func(path string, content []byte) tea.Cmd {
		gotPath, gotContent = path, string(content)
		return func() tea.Msg { return pagerDone{} }
	}
	m = selectFinding(t, started(t, m), "HNS-NETWORK")
	d := press(t, m, runeKey('e'))
	if gotPath != "nodes/win-a/hns-networks.json" || !strings.Contains(gotContent, `"Name":"nat"`) {
		t.Fatalf("pager got %q %q", gotPath, gotContent)
	}
	if d.pager != nil {
		t.Fatal("in-app viewer opened although a Pager is set")
	}

	// Without a Pager: the in-app viewer, closed with q.
	m.opts.Pager = nil
	d = press(t, m, runeKey('e'))
	if d.pager == nil {
		t.Fatal("no in-app viewer")
	}
	mustContain(t, d.Model, "nodes/win-a/hns-networks.json · 1 line", `"Name":"ext"`)
	d = press(t, d.Model, runeKey('j'), runeKey('q'))
	if d.pager != nil || d.quitting {
		t.Fatal("q in the viewer should close it, not quit")
	}

	// Missing evidence and findings without evidence say so.
	be.evidence = map[string][]byte{}
	if d = press(t, m, runeKey('e')); !d.statusErr || !strings.Contains(d.status, "cannot open") {
		t.Fatalf("status = %q", d.status)
	}
	m = selectFinding(t, m, "NET-ROUTES")
	if d = press(t, m, runeKey('e')); !strings.Contains(d.status, "cites no evidence") {
		t.Fatalf("status = %q", d.status)
	}
}

func TestCopyMarkdown(t *testing.T) {
	m, _, _, _ := standard(t)
	var copied string
	m.opts.Clipboard = func(text string) tea.Cmd { copied = text; return nil }
	m = selectFinding(t, started(t, m), "HNS-NETWORK")
	d := press(t, m, runeKey('y'))
	for _, want := range []string{"# wintroubleshoot report", "**Cluster:** aks-prod", "HNS-NETWORK on win-a", "flannel.4096", "Start-Service"} {
		if !strings.Contains(copied, want) {
			t.Fatalf("markdown lacks %q:\n%s", want, copied)
		}
	}
	if strings.Contains(copied, "HNS-KPROXY-NET") {
		t.Fatal("markdown holds another finding")
	}
	mustContain(t, d.Model, "copied HNS-NETWORK on win-a as Markdown")

	// Without a Clipboard the OSC 52 command is returned.
	m.opts.Clipboard = nil
	if _, cmd := m.Update(runeKey('y')); cmd == nil {
		t.Fatal("no clipboard command")
	}
}

func TestEscCancelsSweep(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	be.block = true
	m := testModel(t, Options{Nodes: []string{"win-a", "win-b", "win-c"}, Backend: be}, 80, 24)
	var s *sweep
	for _, sw := range m.sweeps {
		s = sw
	}
	// The sweep's first wait starts Probe; the fake emits NodeStarted for every node.
	msg := runCmd(t, s.next(be))
	<-waitFor(t, be.started)
	mm, _ := m.Update(msg)
	m = mm.(Model)
	if n := m.store.nodes[0]; n.state != nodeRunning {
		t.Fatalf("win-a state %v, want running", n.state)
	}
	mustContain(t, m, "probing")

	mm, _ = m.Update(kEsc)
	m = mm.(Model)
	select {
	case err := <-be.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("backend saw %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("backend never saw the cancellation")
	}
	if len(m.sweeps) != 0 || m.busy() {
		t.Fatal("sweep still registered")
	}
	for _, n := range m.store.nodes {
		if n.state != nodeIdle || !n.cancelled {
			t.Fatalf("%s: state=%v cancelled=%v", n.name, n.state, n.cancelled)
		}
	}
	mustContain(t, m, "cancelled sweep", "win-a    cancelled")
	// The sweep's channel closes; the late end is ignored.
	mm, _ = m.Update(runCmd(t, s.next(be)))
	mustContain(t, mm.(Model), "cancelled")
}

func waitFor(t *testing.T, ch chan struct{}) chan struct{} {
	t.Helper()
	out := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-time.After(2 * time.Second):
		}
		close(out)
	}()
	return out
}

// decliningFixer records declined previews.
type decliningFixer struct {
	fakeFixer
	declined []probes.Finding
}

func (d *decliningFixer) Declined(f probes.Finding) { d.declined = append(d.declined, f) }

func TestFixDeclinedIsReported(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	fx := &decliningFixer{}
	m := started(t, testModel(t, Options{Nodes: []string{"win-a"}, Backend: be, Fixer: fx}, 80, 24))
	d := press(t, m, kTab, runeKey('j'), runeKey('f'), runeKey('y'), kEsc) // HNS-KPROXY-NET, disruptive: declined at "type the node name"
	if len(fx.declined) != 1 || fx.declined[0].Probe != "HNS-KPROXY-NET" || len(fx.applied) != 0 {
		t.Fatalf("declined %v applied %d", fx.declined, len(fx.applied))
	}
	mustContain(t, d.Model, "fix declined: nothing was changed")
	press(t, d.Model, runeKey('f'), runeKey('n'))
	if len(fx.declined) != 2 {
		t.Fatalf("n at the preview: declined %d", len(fx.declined))
	}
}

func TestNodesDiscoveredFromEvents(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	m := started(t, testModel(t, Options{Backend: be}, 80, 24))
	if len(m.store.nodes) != 3 || m.selectedNode() == nil || m.selectedNode().name != "win-a" {
		t.Fatalf("nodes %d, selected %v", len(m.store.nodes), m.selectedNode())
	}
	mustContain(t, m, "✗ win-a", "? win-b", "✓ win-c", "HNS-KPROXY-NET")
}
