package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// --- help overlay (?) ---

// helpView is the full key reference: every binding of the main screen, grouped.
func (m Model) helpView() string {
	k := m.keys
	groups := [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown, k.NextPane, k.PrevPane, k.Open},
		{k.Filter, with(k.Cancel, "cancel / clear filter"), k.Reprobe, k.ReprobeAll, k.Snapshot},
		{k.Fix, k.Evidence, k.Copy, k.RootCauses, m.groupByKey(), k.Help, k.Quit, k.ForceQuit},
	}
	h := m.help
	h.SetWidth(max(20, m.lay.w-8))
	lines := []string{m.st.bold.Render("Keys"), ""}
	lines = append(lines, strings.Split(h.FullHelpView(groups), "\n")...)
	lines = append(lines, "",
		"Status glyphs: ✓ pass  – skip  ! warn  ✗ fail  ? error (could not judge)",
		"Nodes: · pending   spinner while probing",
		"Fix dialog: y/enter confirm · n/esc cancel",
		// The words of engine.Confirmation.Question, which the dialog and fix's prompt ask.
		"Disruptive fixes ask again: type the node name (fix: --confirm NODE).",
		m.st.dim.Render("? or esc closes this help"))
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	w = min(m.lay.w-2, w+4)
	return m.st.box("Help", pad(lines), w, min(m.lay.h-2, len(lines)+2), true)
}

// --- evidence (e) ---

type evidenceMsg struct {
	path string
	data []byte
	err  error
}

// openEvidence reads the first evidence path of the selected finding off the UI
// goroutine; onEvidence shows it.
func (m Model) openEvidence() (tea.Model, tea.Cmd) {
	f, ok := m.selectedFinding()
	switch {
	case !ok:
		m.setStatus("no finding selected", true)
		return m, nil
	case len(f.Evidence) == 0:
		m.setStatus(f.Probe+" cites no evidence", false)
		return m, nil
	case m.opts.Backend == nil:
		m.setStatus("evidence is unavailable", true)
		return m, nil
	}
	b, node, path := m.opts.Backend, f.Node, f.Evidence[0]
	m.setStatus("opening "+path+"…", false)
	return m, func() tea.Msg {
		data, err := b.Evidence(node, path)
		return evidenceMsg{path: path, data: data, err: err}
	}
}

func (m Model) onEvidence(msg evidenceMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.setStatus("cannot open "+msg.path+": "+oneLine(msg.err.Error()), true)
		return m, nil
	}
	m.setStatus(fmt.Sprintf("%s (%d bytes)", msg.path, len(msg.data)), false)
	// Redacted by the file's own name: a JSON file by value, whole.
	msg.data = []byte(m.redact(msg.path, string(msg.data)))
	if m.opts.Pager != nil {
		return m, m.opts.Pager(msg.path, msg.data)
	}
	m.pager = newPager(msg.path, msg.data, m.lay.w-2, m.lay.bodyH-2)
	return m, nil
}

// pagerView shows one evidence file in place of the panes (less-like keys).
type pagerView struct {
	path string
	text string // cleaned
	vp   viewport.Model
}

func newPager(path string, data []byte, w, h int) *pagerView {
	text := strings.TrimSuffix(clean(string(data)), "\n")
	p := &pagerView{path: path, text: text, vp: viewport.New()}
	p.vp.FillHeight = true
	p.setSize(w, h)
	return p
}

// setSize re-wraps the text to the width: at word boundaries where there are some (the
// root-cause view is prose), hard where a line has none (evidence is often one long JSON
// line).
func (p *pagerView) setSize(w, h int) {
	p.vp.SetWidth(max(1, w))
	p.vp.SetHeight(max(1, h))
	p.vp.SetContent(ansi.Wrap(p.text, max(1, w), ""))
}

func (p *pagerView) view(st styles, w, h int) string {
	title := fmt.Sprintf("%s · %d line", p.path, p.vp.TotalLineCount())
	if p.vp.TotalLineCount() != 1 {
		title += "s"
	}
	if !p.vp.AtTop() || !p.vp.AtBottom() {
		title += fmt.Sprintf(" · %d%%", int(p.vp.ScrollPercent()*100))
	}
	return st.box(title, strings.Split(p.vp.View(), "\n"), w, h, true)
}

func (m Model) pagerKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km, vp := m.keys, &m.pager.vp
	switch {
	case keyIs(k, km.Close):
		m.pager = nil
	case keyIs(k, km.Up):
		vp.ScrollUp(1)
	case keyIs(k, km.Down):
		vp.ScrollDown(1)
	case keyIs(k, km.PageUp):
		vp.PageUp()
	case keyIs(k, km.PageDown):
		vp.PageDown()
	case keyIs(k, km.Top):
		vp.GotoTop()
	case keyIs(k, km.Bottom):
		vp.GotoBottom()
	}
	return m, nil
}

// --- snapshot (s) ---

type snapState struct {
	task        *task
	done, total int
	item        string
	bar         progress.Model
}

type snapProgressMsg struct {
	task        *task
	done, total int
	item        string
}

type snapDoneMsg struct {
	id   int
	path string
	err  error
}

// startSnapshot writes a bundle in the background with a progress bar in the footer.
func (m Model) startSnapshot() (tea.Model, tea.Cmd) {
	switch {
	case m.opts.Snapshot == nil:
		m.setStatus("snapshots are unavailable here", true)
		return m, nil
	case m.snap != nil:
		m.setStatus("a snapshot is already being written", false)
		return m, nil
	}
	m.nextID++
	t := newTask(m.ctx, m.nextID)
	bar := progress.New(progress.WithFillCharacters('█', '░'), progress.WithColors(m.st.bar[0]))
	bar.EmptyColor = m.st.bar[1]
	m.snap = &snapState{task: t, bar: bar}
	m.setStatus("", false)
	snap := m.opts.Snapshot
	run := t.start(func(ctx context.Context) tea.Msg {
		path, err := snap.Snapshot(ctx, func(done, total int, item string) {
			t.progress(snapProgressMsg{task: t, done: done, total: total, item: item})
		})
		return snapDoneMsg{id: t.id, path: path, err: err}
	})
	return m, tea.Batch(run, m.startTicking())
}

func (m Model) onSnapMsg(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case snapProgressMsg:
		if s := m.snap; s != nil && s.task == msg.task {
			s.done, s.total, s.item = msg.done, msg.total, oneLine(msg.item)
		}
		return m, msg.task.next()
	case snapDoneMsg:
		live := m.snap != nil && m.snap.task.id == msg.id
		switch {
		case !live && msg.err == nil && msg.path != "":
			m.setStatus("the cancelled snapshot was written anyway: "+msg.path, false)
		case !live:
		case msg.err != nil:
			m.setStatus("snapshot failed: "+oneLine(msg.err.Error()), true)
		default:
			m.setStatus("snapshot written: "+msg.path, false)
		}
		if live {
			m.snap = nil
		}
	}
	return m, nil
}

// view is the footer line while a snapshot runs: bar, count, current item.
func (s *snapState) view(st styles, w int) string {
	pct := 0.0
	if s.total > 0 {
		pct = float64(s.done) / float64(s.total)
	}
	bar := s.bar
	bar.SetWidth(max(10, min(30, w/4)))
	line := "snapshot " + bar.ViewAs(pct) + fmt.Sprintf("  %d/%d", s.done, s.total)
	if s.item != "" {
		line += "  " + st.dim.Render(s.item)
	}
	return line + st.dim.Render("  (esc cancels)")
}
