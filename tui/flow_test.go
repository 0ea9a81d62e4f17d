package tui

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// Flows run the real program (tea.Program over in-memory input and output) with the
// spinner turning and events arriving from the fake backend's goroutines.

func waitText(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := []byte(ansi.Strip(string(b)))
		for _, s := range texts {
			if !bytes.Contains(plain, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func finalModel(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	m, ok := fm.(Model)
	if !ok {
		t.Fatalf("final model is %T", fm)
	}
	return m
}

func TestFlowOpenFilterHelpQuit(t *testing.T) {
	m, _, _, _ := standard(t)
	m.animate = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))

	// Open: the sweep fills the findings in.
	waitText(t, tm, "HNS-KPROXY-NET", "unreachable", "judged")

	// Filter down to the unreachable node: its finding shows.
	tm.Send(runeKey('/'))
	tm.Type("refused")
	waitText(t, tm, "node not reachable")
	tm.Send(kEnter)

	// Help.
	tm.Send(runeKey('?'))
	waitText(t, tm, "re-probe all", "Status glyphs")
	tm.Send(kEsc)

	tm.Send(runeKey('q'))
	fm := finalModel(t, tm)
	if !fm.quitting || fm.store.query != "refused" || fm.showHelp {
		t.Fatalf("final: quitting=%v query=%q help=%v", fm.quitting, fm.store.query, fm.showHelp)
	}
	if n := fm.selectedNode(); n == nil || n.name != "win-b" {
		t.Fatalf("final selection %v", n)
	}
}

func TestFlowFixAndVerify(t *testing.T) {
	m, _, fx, _ := standard(t)
	m.animate = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	waitText(t, tm, "HNS-KPROXY-NET", "judged")
	tm.Send(kTab) // the first finding is HNS-NETWORK now: the root cause leads
	tm.Send(runeKey('f'))
	waitText(t, tm, "Apply this fix?")
	tm.Send(runeKey('y'))
	waitText(t, tm, "verified")
	tm.Send(kEnter)
	tm.Send(kCtrlC)
	fm := finalModel(t, tm)
	if len(fx.applied) != 1 || fm.dlg != nil {
		t.Fatalf("applied %d, dialog open %v", len(fx.applied), fm.dlg != nil)
	}
}

func TestFlowEscCancelsSweep(t *testing.T) {
	be := newFakeBackend(cannedFindings())
	be.block = true
	m := New(Options{Cluster: "c", Nodes: []string{"win-a", "win-b"}, Backend: be, NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	waitText(t, tm, "probing")
	tm.Send(kEsc)
	select {
	case err := <-be.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("backend saw %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("backend never saw the cancellation")
	}
	waitText(t, tm, "cancelled")
	tm.Send(runeKey('q'))
	fm := finalModel(t, tm)
	if len(fm.sweeps) != 0 {
		t.Fatal("sweep still registered")
	}
}

// The Program can also be fed from outside (cmd/ may Send): a late message of an
// unknown kind must not disturb the screen.
func TestFlowProgramSend(t *testing.T) {
	m, _, _, _ := standard(t)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	waitText(t, tm, "judged")
	tm.Send(struct{ unknown int }{1})
	tm.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	waitText(t, tm, "win-c")
	tm.Send(runeKey('q'))
	if fm := finalModel(t, tm); fm.lay.w != 120 {
		t.Fatalf("width %d after resize", fm.lay.w)
	}
}
