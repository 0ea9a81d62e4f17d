package tui

import (
	"bytes"
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

func keyIs(k tea.KeyPressMsg, b key.Binding) bool { return key.Matches(k, b) }

// mainKey handles keys on the main screen (no dialog, pager, prompt or help open).
func (m Model) mainKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	switch {
	case keyIs(k, km.Quit):
		return m.quit()
	case keyIs(k, km.Help):
		m.showHelp = true
	case keyIs(k, km.Cancel):
		m.cancelOrClear()
	case keyIs(k, km.Filter):
		m.filtering = true
		m.filter.SetValue(m.store.query)
		m.filter.CursorEnd()
		return m, m.filter.Focus()
	case keyIs(k, km.NextPane):
		m.focus = (m.focus + 1) % focusCount
	case keyIs(k, km.PrevPane):
		m.focus = (m.focus + focusCount - 1) % focusCount
	case keyIs(k, km.Open):
		m.focus = min(m.focus+1, focusDetail)
	case keyIs(k, km.Reprobe):
		return m.reprobe()
	case keyIs(k, km.ReprobeAll):
		return m.reprobeAll()
	case keyIs(k, km.Fix):
		return m.openFix()
	case keyIs(k, km.Snapshot):
		return m.startSnapshot()
	case keyIs(k, km.Evidence):
		return m.openEvidence()
	case keyIs(k, km.Copy):
		return m.copyFinding()
	case keyIs(k, km.RootCauses):
		return m.openRootCauses()
	case keyIs(k, km.GroupBy):
		m.toggleGrouping()
	default:
		m.navigate(k)
	}
	return m, nil
}

// navigate moves within the focused pane.
func (m *Model) navigate(k tea.KeyPressMsg) {
	km := m.keys
	var d int
	switch {
	case keyIs(k, km.Up):
		d = -1
	case keyIs(k, km.Down):
		d = 1
	case keyIs(k, km.PageUp):
		d = -max(1, m.paneHeight()-1)
	case keyIs(k, km.PageDown):
		d = max(1, m.paneHeight()-1)
	case keyIs(k, km.Top):
		d = -1 << 30
	case keyIs(k, km.Bottom):
		d = 1 << 30
	default:
		return
	}
	if m.grouped && m.focus != focusDetail {
		if m.byF.move(m.focus, d) {
			m.syncDetail(true)
		}
		return
	}
	switch m.focus {
	case focusNodes:
		before := m.nodes.pos
		m.nodes.move(d, len(m.store.visible))
		if m.nodes.pos != before {
			m.finds.reset(m.store, m.selectedNode())
			m.syncDetail(true)
		}
	case focusFindings:
		before := m.finds.pos
		m.finds.move(d, len(m.finds.items))
		if m.finds.pos != before {
			m.syncDetail(true)
		}
	case focusDetail:
		switch {
		case d == -1<<30:
			m.detail.vp.GotoTop()
		case d == 1<<30:
			m.detail.vp.GotoBottom()
		case d < 0:
			m.detail.vp.ScrollUp(-d)
		default:
			m.detail.vp.ScrollDown(d)
		}
	}
}

func (m Model) paneHeight() int {
	switch {
	case m.grouped && m.focus == focusNodes:
		return m.byF.groups.height
	case m.grouped && m.focus == focusFindings:
		return m.byF.members.height
	}
	switch m.focus {
	case focusNodes:
		return m.nodes.height
	case focusFindings:
		return m.finds.height
	}
	return m.detail.vp.Height()
}

// selectedNode is the node r, f, e and y act on: the selected node, or by finding the
// selected group's selected node.
func (m Model) selectedNode() *node {
	if m.grouped {
		n, _, _ := m.byF.selected(m.store)
		return n
	}
	return m.nodes.selected(m.store)
}

func (m Model) selectedFinding() (probes.Finding, bool) {
	if m.grouped {
		_, f, ok := m.byF.selected(m.store)
		return f, ok
	}
	return m.finds.selected(m.selectedNode())
}

// toggleGrouping switches between the fleet by node and by finding, keeping the node
// and finding in view: b and b again lands where it started.
func (m *Model) toggleGrouping() {
	name := ""
	n := m.selectedNode()
	if n != nil {
		name = n.name
	}
	f, ok := m.selectedFinding()
	m.grouped = !m.grouped
	if m.grouped {
		m.byF.load(m.store, f.Probe, f.Status, name)
		m.setStatus("grouped by finding across the nodes (b: by node)", false)
	} else {
		m.nodes.reselect(m.store, name)
		probe := ""
		if ok {
			probe = f.Probe
		}
		m.finds.load(m.store, m.nodes.selected(m.store), probe)
		m.setStatus("grouped by node (b: by finding)", false)
	}
	m.syncDetail(true)
}

// syncDetail rebuilds the detail pane for the current selection.
func (m *Model) syncDetail(top bool) {
	f, ok := m.selectedFinding()
	m.detail.show(m.selectedNode(), f, ok, m.st, top)
}

// refilter recomputes the visible nodes keeping the selection, then the findings.
func (m *Model) refilter() {
	name, probe := "", ""
	var status probes.Status
	if n := m.selectedNode(); n != nil {
		name = n.name
	}
	if f, ok := m.selectedFinding(); ok {
		probe, status = f.Probe, f.Status
	}
	m.store.refilter()
	m.nodes.reselect(m.store, name)
	if m.grouped {
		m.byF.load(m.store, probe, status, name)
	}
	n := m.nodes.selected(m.store)
	if n == nil || n.name != name {
		probe = ""
	}
	m.finds.load(m.store, n, probe)
	m.syncDetail(false)
}

// filterKey edits the filter; it applies as you type. enter keeps it, esc clears it.
func (m Model) filterKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case keyIs(k, m.keys.Apply):
		m.filtering = false
		m.filter.Blur()
		return m, nil
	case keyIs(k, m.keys.Cancel):
		m.filtering = false
		m.filter.Blur()
		m.filter.SetValue("")
		m.store.setQuery("")
		m.refilter()
		return m, nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(k)
	if q := m.filter.Value(); q != m.store.query {
		m.store.setQuery(q)
		m.refilter()
	}
	return m, cmd
}

// forwardInput hands other messages (cursor blinks) to the text input that has focus.
func (m Model) forwardInput(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch {
	case m.dlg != nil && m.dlg.step == stepTypeName:
		m.dlg.input, cmd = m.dlg.input.Update(msg)
	case m.filtering:
		m.filter, cmd = m.filter.Update(msg)
	}
	return m, cmd
}

func (m Model) helpKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case keyIs(k, m.keys.Quit):
		return m.quit()
	case keyIs(k, m.keys.CloseHelp):
		m.showHelp = false
	}
	return m, nil
}

// cancelOrClear is esc on the main screen: cancel running sweeps and the snapshot;
// with nothing running, clear the filter.
func (m *Model) cancelOrClear() {
	if !m.busy() {
		if m.store.query != "" {
			m.filter.SetValue("")
			m.store.setQuery("")
			m.refilter()
			m.setStatus("filter cleared", false)
		}
		return
	}
	var what []string
	if len(m.sweeps) > 0 {
		m.cancelSweeps()
		what = append(what, "sweep")
	}
	if m.snap != nil {
		m.snap.task.cancel()
		m.snap = nil
		what = append(what, "snapshot")
	}
	m.setStatus(fmt.Sprintf("cancelled %s", joinAnd(what)), false)
}

func joinAnd(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return s[0]
}

// startTicking starts the spinner when something runs and it is not already ticking.
func (m *Model) startTicking() tea.Cmd {
	if !m.animate || m.ticking || (!m.busy() && (m.dlg == nil || !m.dlg.working())) {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

// onTick advances the spinner while anything runs, and lets it stop otherwise.
func (m Model) onTick(msg spinner.TickMsg) (tea.Model, tea.Cmd) {
	if !m.busy() && (m.dlg == nil || !m.dlg.working()) {
		m.ticking = false
		return m, nil
	}
	var cmd tea.Cmd
	m.spin, cmd = m.spin.Update(msg)
	return m, cmd
}

// copyFinding copies the selected finding as a Markdown report of just that finding.
func (m Model) copyFinding() (tea.Model, tea.Cmd) {
	f, ok := m.selectedFinding()
	if !ok {
		m.setStatus("no finding selected", true)
		return m, nil
	}
	var buf bytes.Buffer
	// Redacted before Markdown escapes it (SECRET_KEY is SECRET\_KEY to every rule
	// after), and the Markdown once more as it leaves.
	meta, fs, opt := report.Redacted(report.Meta{Cluster: m.opts.Cluster, Context: m.opts.Context}, []probes.Finding{f}, report.Options{}, m.redact)
	if err := report.Write(&buf, report.Markdown, meta, fs, opt); err != nil {
		m.setStatus("copy failed: "+err.Error(), true)
		return m, nil
	}
	text := m.redact("finding.md", buf.String())
	m.setStatus(fmt.Sprintf("copied %s on %s as Markdown", f.Probe, report.NodeLabel(f.Node)), false)
	if m.opts.Clipboard != nil {
		return m, m.opts.Clipboard(text)
	}
	return m, tea.SetClipboard(text)
}
