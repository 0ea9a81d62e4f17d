package tui

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// TestAskBeforeAPod: a backend's question (cmd's, before the first HostProcess pod)
// shows on top of the screen with its title and lines, takes the keys until answered,
// and sends exactly one answer: y yes, n no; quitting answers no.
func TestAskBeforeAPod(t *testing.T) {
	m, _, _, _ := standard(t)
	m = started(t, m)
	for _, tc := range []struct {
		key  string
		want bool
	}{{"y", true}, {"n", false}} {
		reply := make(chan bool, 1)
		mm, _ := m.Update(AskMsg{Title: "Create a HostProcess pod on node win-a in namespace default?",
			Lines: []string{`What: runs as NT AUTHORITY\SYSTEM`, "Why: no node credentials"}, Reply: reply})
		mustContain(t, mm.(Model), "Create a HostProcess pod on node win-a", `NT AUTHORITY\SYSTEM`, "no node credentials", "y/enter yes")
		d := press(t, mm.(Model), runeKey('j'), runeKey(rune(tc.key[0])))
		if got := <-reply; got != tc.want {
			t.Errorf("%s answered %v", tc.key, got)
		}
		mustNotContain(t, d.Model, "y/enter yes")
		if len(reply) != 0 {
			t.Error("more than one answer")
		}
	}
	reply := make(chan bool, 1)
	mm, _ := m.Update(AskMsg{Title: "Create?", Reply: reply})
	if d := press(t, mm.(Model), kCtrlC); !d.quit || <-reply {
		t.Error("quitting did not answer no")
	}
}

// TestDisruptiveWordsAgree: the help, the fix dialog and fix's headless prompt ask for a
// disruptive fix the same thing in the same words (the help used to say "type yes").
func TestDisruptiveWordsAgree(t *testing.T) {
	const words = "type the node name"
	q := strings.ToLower(engine.Confirmation{Disruptive: true, Token: "win-a"}.Question())
	if !strings.Contains(q, words) {
		t.Fatalf("the prompt %q no longer says %q", q, words)
	}
	m, _, _, _ := standard(t)
	m = started(t, m)
	help := strings.ToLower(screen(press(t, m, runeKey('?')).Model))
	if !strings.Contains(help, words) || strings.Contains(help, "type yes") {
		t.Errorf("help:\n%s", help)
	}
}
