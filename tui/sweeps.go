package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// queueSweep registers a sweep of nodes (nil: all) and marks them queued; the caller
// returns s.next to start it.
func (m *Model) queueSweep(nodes []string) *sweep {
	m.nextID++
	s := newSweep(m.ctx, m.nextID, nodes)
	m.sweeps[s.id] = s
	own := func(n *node) {
		n.state, n.sweep, n.cancelled = nodeQueued, s.id, false
		n.refresh()
	}
	if nodes == nil {
		for _, n := range m.store.nodes {
			own(n)
		}
	} else {
		for _, name := range nodes {
			n, _ := m.store.get(name)
			own(n)
		}
	}
	return s
}

// reprobe (r) sweeps the selected node again.
func (m Model) reprobe() (tea.Model, tea.Cmd) {
	n := m.selectedNode()
	switch {
	case m.opts.Backend == nil:
		m.setStatus("probing is unavailable", true)
		return m, nil
	case n == nil:
		m.setStatus("no node selected", true)
		return m, nil
	case n.state != nodeIdle:
		m.setStatus(n.label()+" is already being probed", false)
		return m, nil
	case n.name == "":
		m.setStatus("cluster-wide findings are re-judged by R (re-probe all)", false)
		return m, nil
	}
	s := m.queueSweep([]string{n.name})
	m.setStatus("re-probing "+n.label(), false)
	m.syncDetail(false)
	return m, tea.Batch(s.next(m.opts.Backend), m.startTicking())
}

// reprobeAll (R) replaces any running sweep with a sweep of every node.
func (m Model) reprobeAll() (tea.Model, tea.Cmd) {
	if m.opts.Backend == nil {
		m.setStatus("probing is unavailable", true)
		return m, nil
	}
	for id, s := range m.sweeps {
		s.cancel()
		delete(m.sweeps, id)
	}
	s := m.queueSweep(nil)
	m.setStatus(fmt.Sprintf("re-probing all %d nodes", len(m.store.nodes)), false)
	m.refilter()
	return m, tea.Batch(s.next(m.opts.Backend), m.startTicking())
}

// cancelSweeps cancels every running sweep: their nodes show "cancelled" at once and
// keep the findings they had; late events of those sweeps are ignored.
func (m *Model) cancelSweeps() {
	for id, s := range m.sweeps {
		s.cancel()
		delete(m.sweeps, id)
		for _, n := range m.store.nodes {
			if n.sweep == id && n.state != nodeIdle {
				n.state, n.cancelled = nodeIdle, true
				n.refresh()
			}
		}
	}
	m.syncDetail(false)
}

// onSweep applies a batch of events, then waits for the next batch.
func (m Model) onSweep(msg sweepMsg) (tea.Model, tea.Cmd) {
	s, ok := m.sweeps[msg.id]
	if !ok {
		return m, nil // cancelled or replaced: its events no longer count
	}
	sel := m.selectedNode()
	probe := ""
	if f, ok := m.selectedFinding(); ok {
		probe = f.Probe
	}
	added, touchedSel := false, false
	for _, ev := range msg.events {
		a, t := m.applyEvent(s, ev, sel)
		added, touchedSel = added || a, touchedSel || t
	}
	if msg.end {
		m.endSweep(s)
		touchedSel = true
	}
	switch {
	case added || m.store.query != "" || m.grouped:
		// By finding, any node's findings may change the groups on screen.
		m.refilter()
	case touchedSel:
		m.finds.load(m.store, sel, probe)
		m.syncDetail(false)
	}
	if msg.end {
		return m, nil
	}
	return m, s.next(m.opts.Backend)
}

// applyEvent records one event; it reports whether a node was added and whether the
// selected node changed.
func (m *Model) applyEvent(s *sweep, ev engine.Event, sel *node) (added, touched bool) {
	if ev.Kind == engine.Done {
		return m.applyDone(s, ev.Findings, sel)
	}
	n, added := m.store.get(ev.Node)
	if !added && n.sweep != s.id {
		return false, false // another sweep owns this node now
	}
	n.sweep = s.id
	switch ev.Kind {
	case engine.NodeStarted:
		n.state, n.cancelled = nodeRunning, false
	case engine.NodeCollected:
		n.err, n.via = "", string(ev.Via)
		if ev.Err != nil {
			n.err = oneLine(ev.Err.Error())
		}
	case engine.NodeJudged:
		n.state = nodeIdle
		m.store.judge(n, ev.Findings)
		m.learnOS(n)
	}
	n.refresh()
	return added, n == sel
}

// applyDone takes findings from the Done event for nodes that were not judged one by one
// (a backend may report only at the end).
func (m *Model) applyDone(s *sweep, fs []probes.Finding, sel *node) (added, touched bool) {
	byNode := map[string][]probes.Finding{}
	for _, f := range fs {
		byNode[f.Node] = append(byNode[f.Node], f)
	}
	for name, nfs := range byNode {
		n, a := m.store.get(name)
		if (!a && n.sweep != s.id) || (n.judged && n.state == nodeIdle) {
			continue
		}
		n.sweep, n.state = s.id, nodeIdle
		m.store.judge(n, nfs)
		added, touched = added || a, touched || n == sel
	}
	return added, touched
}

// endSweep: Probe returned. Nodes it never reached go back to idle.
func (m *Model) endSweep(s *sweep) {
	delete(m.sweeps, s.id)
	s.cancel()
	missed := 0
	for _, n := range m.store.nodes {
		if n.sweep == s.id && n.state != nodeIdle {
			n.state = nodeIdle
			n.refresh()
			missed++
		}
	}
	judged, _, total := m.store.progress()
	msg := fmt.Sprintf("sweep done: %d/%d nodes judged", judged, total)
	if len(s.nodes) == 1 {
		msg = "re-probed " + report.NodeLabel(s.nodes[0])
	}
	if missed > 0 {
		msg += fmt.Sprintf(" (%d not reached)", missed)
	}
	m.setStatus(msg, false)
}
