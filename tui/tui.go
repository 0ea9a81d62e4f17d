// Package tui is the interactive front end: a bubbletea screen over the engine's events.
// It lists the Windows nodes with a status glyph each, the findings of the selected
// node and the detail of the selected finding, and drives re-probes, fixes, snapshots,
// evidence and copying from the keyboard. It never blocks on I/O: the backend runs in
// its own goroutines and reports over channels that tea.Cmds wait on.
//
// Components (node list, findings, detail, dialog, pager) own their state and view;
// the root Update only routes messages to them.
package tui

import (
	"context"
	"os"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Backend is what the screen drives; cmd/ implements it over the engine (live or demo).
type Backend interface {
	// Probe sweeps the nodes (all when nodes is empty) and calls emit for each engine
	// event, from other goroutines; returns when done or ctx is cancelled. emit must not
	// be called after Probe returns.
	Probe(ctx context.Context, nodes []string, emit func(engine.Event))
	// Evidence returns one evidence file of a node's finding (for `e`). The node says
	// which cluster a "cluster/..." path belongs to when nodes come from several.
	Evidence(node, path string) ([]byte, error)
}

// Fixer runs the fix flow; nil means fixes are unavailable and `f` says so.
type Fixer interface {
	// Preview is the text shown before confirming: exact commands, impact, disruptive flag.
	Preview(ctx context.Context, f probes.Finding) (string, error)
	// Apply runs the fix with what the person typed at the confirmation (checked again
	// against engine.Confirmation), re-collects, and returns the engine's Outcome, which
	// the screen shows as decided. When the fix offered choices, f.Fix is the one the
	// person chose (its Verify inherited from the parent when empty); Preview gets the
	// same finding.
	Apply(ctx context.Context, f probes.Finding, typed string, progress func(string)) (engine.Outcome, error)
}

// FixDecliner is optionally implemented by a Fixer that wants to know (say, to audit)
// that the person declined a fix after seeing its preview. f.Fix is the fix that was
// shown (the chosen one, when the fix offered choices).
type FixDecliner interface {
	Declined(f probes.Finding)
}

// Snapshotter writes a bundle; nil means `s` says it is unavailable.
type Snapshotter interface {
	Snapshot(ctx context.Context, progress func(done, total int, item string)) (path string, err error)
}

// Options configure the screen.
type Options struct {
	// Parent is the parent of every sweep, fix and snapshot the screen starts, so the
	// caller's cancellation (Ctrl-C delivered as a signal, a test's deadline) stops a
	// fix in flight. nil means context.Background.
	Parent           context.Context
	Cluster, Context string   // header
	Nodes            []string // known Windows nodes, shown at once with a pending glyph
	Backend          Backend
	Fixer            Fixer       // may be nil
	Snapshot         Snapshotter // may be nil
	// Pager opens evidence in $PAGER (via tea.ExecProcess); nil shows it in an in-app viewer.
	// It is called from Update, so it must only build the Cmd: any file it writes is
	// written when the Cmd runs.
	Pager func(path string, content []byte) tea.Cmd
	// Clipboard copies text for `y`; nil uses tea.SetClipboard (OSC 52).
	Clipboard func(text string) tea.Cmd
	// NoColor renders without any colour (glyphs and text decoration only). New also
	// honours a non-empty NO_COLOR environment variable.
	NoColor bool
	// Redactor removes secrets from what leaves the screen: the copy (y) and the
	// evidence pager (e). nil copies and shows text as it is (tests, the demo).
	Redactor Redactor
}

// Redactor removes secrets from text that leaves the screen. name is the file the text
// is (or would be): its suffix chooses how it is read (JSON by value, else by line).
// cmd passes the run's one redactor, built with the node password it used.
type Redactor interface {
	Redact(name string, s string) string
}

// redact is s through the screen's Redactor, or s itself without one.
func (m Model) redact(name, s string) string {
	if m.opts.Redactor == nil {
		return s
	}
	return m.opts.Redactor.Redact(name, s)
}

// focus is the pane that receives navigation keys.
type focus int

const (
	focusNodes focus = iota
	focusFindings
	focusDetail
	focusCount
)

// Model is the screen; it implements tea.Model. Like any bubbletea model it is used
// linearly: copies share the node data and open dialogs (they are pointers, so a
// 500-node store is not copied on every message).
type Model struct {
	opts  Options
	keys  keyMap
	st    styles
	dark  bool
	lay   layout
	ctx   context.Context // parent of every operation; cancelled on quit
	stop  context.CancelFunc
	store *store

	nodes  nodeList
	finds  findingsPane
	detail detailPane
	focus  focus
	// grouped shows the fleet by finding (byF) instead of by node (nodes, finds).
	grouped bool
	byF     byFinding

	spin    spinner.Model
	animate bool // spinner ticks; off in tests so views are deterministic
	ticking bool

	sweeps map[int]*sweep // running sweeps by id
	nextID int

	filter    textinput.Model
	filtering bool // the filter prompt has the keyboard

	asks     []AskMsg   // questions a backend waits on, the first shown on top
	dlg      *fixDialog // fix dialog; nil when closed
	snap     *snapState // running snapshot; nil when none
	pager    *pagerView // in-app evidence viewer; nil when closed
	showHelp bool
	help     help.Model

	status    string // one-line message in the footer
	statusErr bool
	quitting  bool
}

// New builds the screen. Probing starts on Init.
func New(opts Options) Model {
	noColor := opts.NoColor || os.Getenv("NO_COLOR") != ""
	opts.NoColor = noColor
	parent := opts.Parent
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := context.WithCancel(parent)
	m := Model{
		opts:    opts,
		keys:    defaultKeys(),
		dark:    true,
		ctx:     ctx,
		stop:    stop,
		store:   newStore(opts.Nodes),
		detail:  newDetail(),
		spin:    spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		animate: true,
		sweeps:  map[int]*sweep{},
		filter:  textinput.New(),
		help:    help.New(),
	}
	m.filter.Prompt = "/"
	m.filter.Placeholder = "node, probe, status or text"
	m.setStyles()
	m.resize(80, 24)
	if opts.Backend != nil {
		m.queueSweep(nil)
	}
	return m
}

// Init starts the first sweep and asks the terminal for its background colour.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for _, s := range m.sweeps {
		cmds = append(cmds, s.next(m.opts.Backend))
	}
	return tea.Batch(append(cmds, m.startTicking())...)
}

// Update routes a message to the component that owns it.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.setStyles()
		m.syncDetail(false)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case spinner.TickMsg:
		return m.onTick(msg)
	case sweepMsg:
		return m.onSweep(msg)
	case previewMsg, fixProgressMsg, fixDoneMsg:
		return m.onFixMsg(msg)
	case snapProgressMsg, snapDoneMsg:
		return m.onSnapMsg(msg)
	case evidenceMsg:
		return m.onEvidence(msg)
	case AskMsg:
		return m.onAsk(msg)
	default:
		return m.forwardInput(msg)
	}
	return m, nil
}

// onKey: ctrl+c always quits; otherwise the topmost layer gets the key.
func (m Model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case keyIs(k, m.keys.ForceQuit):
		return m.quit()
	case len(m.asks) > 0:
		return m.askKey(k)
	case m.dlg != nil:
		return m.dialogKey(k)
	case m.pager != nil:
		return m.pagerKey(k)
	case m.filtering:
		return m.filterKey(k)
	case m.showHelp:
		return m.helpKey(k)
	}
	return m.mainKey(k)
}

// quit cancels everything that runs and ends the program.
func (m Model) quit() (tea.Model, tea.Cmd) {
	for id, s := range m.sweeps {
		s.cancel()
		delete(m.sweeps, id)
	}
	if m.dlg != nil && m.dlg.task != nil {
		m.dlg.task.cancel()
	}
	if m.snap != nil {
		m.snap.task.cancel()
	}
	m.declineAsks()
	m.stop()
	m.quitting = true
	return m, tea.Quit
}

// Stop cancels every running sweep, fix and snapshot. q and ctrl+c do this; call it on
// the final model when the program ended some other way (its context was cancelled).
func (m Model) Stop() {
	for _, s := range m.sweeps {
		s.cancel()
	}
	m.stop()
}

// busy reports whether a sweep or a snapshot is running (what esc cancels on the main
// screen; a running fix is cancelled from its dialog).
func (m Model) busy() bool { return len(m.sweeps) > 0 || m.snap != nil }

func (m *Model) setStyles() {
	m.st = newStyles(m.dark, m.opts.NoColor)
	m.help.Styles = m.st.help
	m.filter.SetStyles(m.st.input)
	m.spin.Style = m.st.title
}

func (m *Model) setStatus(s string, isErr bool) { m.status, m.statusErr = s, isErr }

// View draws the screen: header, panes (or the evidence viewer), footer, and the
// dialog or help on top.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "wintroubleshoot"
	if m.opts.Cluster != "" {
		v.WindowTitle += " · " + m.opts.Cluster
	}
	return v
}
