package tui

import (
	tea "charm.land/bubbletea/v2"
)

// AskMsg asks the person a yes/no question on the screen, for a backend that must not
// go on without consent: cmd asks it before the first HostProcess pod of a run. Send it
// with tea.Program.Send from any goroutine; Reply, buffered for one, receives exactly
// one answer (false when the person declines or quits). Questions queue: one box at a time, over
// everything else, as the answer gates work in flight.
type AskMsg struct {
	Title string
	Lines []string
	Reply chan<- bool
}

// onAsk queues a question.
func (m Model) onAsk(msg AskMsg) (tea.Model, tea.Cmd) {
	m.asks = append(m.asks, msg)
	return m, nil
}

// askKey answers the question on top: y/enter yes, n/esc no.
func (m Model) askKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	var yes bool
	switch {
	case keyIs(k, m.keys.Confirm):
		yes = true
	case keyIs(k, m.keys.Deny):
	default:
		return m, nil
	}
	q := m.asks[0]
	m.asks = m.asks[1:]
	q.Reply <- yes
	if yes {
		m.setStatus("answered yes: "+oneLine(q.Title), false)
	} else {
		m.setStatus("answered no: "+oneLine(q.Title), false)
	}
	return m, nil
}

// declineAsks answers every open question no (the screen is closing).
func (m *Model) declineAsks() {
	for _, q := range m.asks {
		q.Reply <- false
	}
	m.asks = nil
}

// askView draws the question on top for a w x h screen.
func (m Model) askView(w, h int) string {
	q := m.asks[0]
	bw := min(w-4, 84)
	iw := bw - 4
	lines := wrap(m.st.bold.Render(clean(q.Title)), iw, "  ")
	lines = append(lines, "")
	for _, l := range q.Lines {
		lines = append(lines, wrap(clean(l), iw, "  ")...)
	}
	lines = append(lines, "", m.st.bold.Render("y/enter")+" yes · "+m.st.bold.Render("n/esc")+" no")
	if len(lines) > h-4 {
		lines = lines[:max(1, h-4)]
	}
	return m.st.box("Question", pad(lines), bw, len(lines)+2, true)
}
