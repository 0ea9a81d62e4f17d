package tui

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestParentContextCancelsFix: the screen's work hangs off the caller's context, so a
// signal that cancels it (Ctrl-C while the terminal is not in raw mode, SIGTERM) stops a
// fix in flight instead of leaving it running against the node.
func TestParentContextCancelsFix(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	be := newFakeBackend(cannedFindings())
	fx := &fakeFixer{cancelled: make(chan error, 1), block: true}
	m := testModel(t, Options{Parent: parent, Nodes: []string{"win-a", "win-b", "win-c"}, Backend: be, Fixer: fx}, 80, 24)
	m = selectFinding(t, started(t, m), "HNS-NETWORK")
	m = press(t, m, runeKey('f')).Model
	mm, cmd := m.Update(runeKey('y'))
	m = mm.(Model)
	if m.dlg == nil || m.dlg.step != stepRunning {
		t.Fatal("the fix did not start")
	}
	_ = runCmd(t, cmd) // the first progress line: Apply is running
	cancel()
	select {
	case err := <-fx.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Apply saw %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("cancelling the caller's context did not reach the running fix")
	}
}

// TestNoParentContext: a screen built without a context still runs and stops.
func TestNoParentContext(t *testing.T) {
	m := New(Options{Nodes: []string{"win-a"}, Backend: newFakeBackend(cannedFindings())})
	if m.ctx.Err() != nil {
		t.Fatal("fresh screen is already cancelled")
	}
	m.Stop()
	if m.ctx.Err() == nil {
		t.Fatal("Stop did not cancel the screen's context")
	}
}
