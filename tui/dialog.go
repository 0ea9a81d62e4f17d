package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// dialogStep is where the fix flow is.
type dialogStep int

const (
	stepChoose   dialogStep = iota // pick one of the fix's choices
	stepPreview                    // waiting for Fixer.Preview
	stepConfirm                    // preview shown: y/enter applies, n/esc cancels
	stepTypeName                   // disruptive: type the node name to apply (engine.Confirmation)
	stepRunning                    // Fixer.Apply runs
	stepResult                     // the engine's Result, or cancelled
)

// fixDialog is the fix flow for one finding: choose, preview, confirm (a disruptive fix
// by typing the node name, the rule `fix` applies too), apply with progress, and show the
// Outcome exactly as the engine decided it.
type fixDialog struct {
	id      int
	finding probes.Finding // the selected finding, Fix replaced by the chosen choice
	choices []*probes.Fix
	choice  int
	step    dialogStep
	preview []string
	scroll  int
	input   textinput.Model
	hint    string
	task    *task
	log     []string
	result  *engine.Outcome // what the engine decided; nil until the fix returns
	outcome string          // result line
	failed  bool
}

type previewMsg struct {
	id   int
	text string
	err  error
}

type fixProgressMsg struct {
	task *task
	line string
}

type fixDoneMsg struct {
	id   int
	node string
	out  engine.Outcome
	err  error
}

func (d *fixDialog) fix() *probes.Fix { return d.finding.Fix }

// working: the spinner should turn.
func (d *fixDialog) working() bool { return d.step == stepPreview || d.step == stepRunning }

// openFix (f) starts the fix flow for the selected finding, or says why it cannot.
func (m Model) openFix() (tea.Model, tea.Cmd) {
	f, ok := m.selectedFinding()
	switch {
	case !ok:
		m.setStatus("no finding selected", true)
		return m, nil
	case f.Fix == nil:
		m.setStatus("no fix for "+f.Probe+" on "+report.NodeLabel(f.Node), false)
		return m, nil
	case m.opts.Fixer == nil:
		m.setStatus("fixes are unavailable here (no fixer): the detail pane shows the commands", true)
		return m, nil
	}
	m.nextID++
	d := &fixDialog{id: m.nextID, finding: f}
	for _, c := range f.Fix.Choices {
		if c != nil {
			d.choices = append(d.choices, c)
		}
	}
	m.dlg = d
	if len(d.choices) > 0 {
		d.step = stepChoose
		return m, nil
	}
	return m, m.previewFix()
}

// previewFix asks the Fixer for the preview off the UI goroutine (manual fixes end here).
func (m *Model) previewFix() tea.Cmd {
	d := m.dlg
	if d.fix().Kind == probes.Manual {
		d.step, d.failed = stepResult, true
		d.outcome = "manual fix: the tool never runs it; carry out the steps shown in the detail pane"
		return nil
	}
	d.step = stepPreview
	fixer, f, id, ctx := m.opts.Fixer, d.finding, d.id, m.ctx
	return tea.Batch(func() tea.Msg {
		text, err := fixer.Preview(ctx, f)
		return previewMsg{id: id, text: text, err: err}
	}, m.startTicking())
}

// applyFix runs Fixer.Apply in the background with a cancellable context, passing on
// what the person typed: the engine checks it against the same Confirmation again.
func (m *Model) applyFix(typed string) tea.Cmd {
	d := m.dlg
	d.step = stepRunning
	d.task = newTask(m.ctx, d.id)
	fixer, f, t := m.opts.Fixer, d.finding, d.task
	run := t.start(func(ctx context.Context) tea.Msg {
		out, err := fixer.Apply(ctx, f, typed, func(line string) { t.progress(fixProgressMsg{task: t, line: line}) })
		return fixDoneMsg{id: t.id, node: f.Node, out: out, err: err}
	})
	return tea.Batch(run, m.startTicking())
}

// dialogKey handles keys while the dialog is open.
func (m Model) dialogKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	d, km := m.dlg, m.keys
	switch d.step {
	case stepChoose:
		switch {
		case keyIs(k, km.Up):
			d.choice = max(0, d.choice-1)
		case keyIs(k, km.Down):
			d.choice = min(len(d.choices)-1, d.choice+1)
		case keyIs(k, km.Apply):
			c := *d.choices[d.choice]
			if c.Verify == "" {
				c.Verify = d.finding.Fix.Verify
			}
			d.finding.Fix = &c
			return m, m.previewFix()
		case keyIs(k, km.Deny):
			m.closeDialog("fix cancelled")
		}
	case stepPreview:
		if keyIs(k, km.Deny) {
			m.closeDialog("fix cancelled")
		}
	case stepConfirm:
		switch {
		case keyIs(k, km.Confirm) && d.confirmation().Disruptive:
			d.step = stepTypeName
			d.input = textinput.New()
			d.input.Prompt = "> "
			d.input.SetStyles(m.st.input)
			d.input.CharLimit = 253 // the longest DNS name a node can have
			return m, d.input.Focus()
		case keyIs(k, km.Confirm):
			return m, m.applyFix("y")
		case keyIs(k, km.Deny):
			return m, m.decline()
		case keyIs(k, km.Up):
			d.scroll = max(0, d.scroll-1)
		case keyIs(k, km.Down):
			d.scroll = min(max(0, len(d.preview)-1), d.scroll+1)
		}
	case stepTypeName:
		switch {
		case keyIs(k, km.Apply):
			if typed := d.input.Value(); d.confirmation().Accepts(typed) {
				return m, m.applyFix(typed)
			}
			d.hint = fmt.Sprintf("type the node name (%s) to apply this disruptive fix, or esc to cancel", oneLine(d.finding.Node))
		case keyIs(k, km.Cancel):
			return m, m.decline()
		default:
			var cmd tea.Cmd
			d.input, cmd = d.input.Update(k)
			return m, cmd
		}
	case stepRunning:
		if keyIs(k, km.Cancel) {
			d.task.cancel()
			d.step, d.failed = stepResult, true
			d.outcome = "cancelled: the fix was interrupted; r re-probes the node to see where it stands"
			m.setStatus("fix cancelled", false)
		}
	case stepResult:
		if keyIs(k, km.Dismiss) {
			m.dlg = nil
		}
	}
	return m, nil
}

// decline closes a dialog whose preview the person saw and refused, telling the Fixer
// when it wants to know (off the UI goroutine: it may write an audit log).
func (m *Model) decline() tea.Cmd {
	f := m.dlg.finding
	m.closeDialog("fix declined: nothing was changed")
	if dc, ok := m.opts.Fixer.(FixDecliner); ok {
		return func() tea.Msg { dc.Declined(f); return nil }
	}
	return nil
}

func (m *Model) closeDialog(status string) {
	m.dlg = nil
	m.setStatus(status, false)
}

// onFixMsg handles preview, progress and the result. A result that arrives after the
// dialog was cancelled or closed still updates the node: the fix did run.
func (m Model) onFixMsg(msg tea.Msg) (tea.Model, tea.Cmd) {
	d := m.dlg
	switch msg := msg.(type) {
	case previewMsg:
		if d == nil || d.id != msg.id || d.step != stepPreview {
			return m, nil
		}
		if msg.err != nil {
			d.step, d.failed, d.outcome = stepResult, true, "preview failed: "+oneLine(msg.err.Error())
			return m, nil
		}
		d.step, d.preview = stepConfirm, strings.Split(strings.TrimRight(clean(msg.text), "\n"), "\n")
	case fixProgressMsg:
		if d != nil && d.id == msg.task.id && d.step == stepRunning {
			d.log = append(d.log, oneLine(msg.line))
			if len(d.log) > 200 {
				d.log = d.log[len(d.log)-200:]
			}
		}
		return m, msg.task.next() // until the result, even after the dialog closed
	case fixDoneMsg:
		return m.fixDone(msg)
	}
	return m, nil
}

func (m Model) fixDone(msg fixDoneMsg) (tea.Model, tea.Cmd) {
	d := m.dlg
	live := d != nil && d.id == msg.id && d.step == stepRunning
	if nf := msg.out.After; nf.Probe != "" {
		// The engine judged the node again (before refusing, or after running): show it.
		if nf.Node == "" {
			nf.Node = msg.node
		}
		probe := ""
		if f, ok := m.selectedFinding(); ok {
			probe = f.Probe
		}
		n, _ := m.store.get(nf.Node)
		m.store.replace(n, nf)
		m.refilter()
		if sel := m.selectedNode(); sel == n {
			m.finds.load(m.store, n, probe)
			m.syncDetail(false)
		}
		if !live {
			m.setStatus(fmt.Sprintf("a cancelled fix finished anyway: %s %s %s", nf.Status.Glyph(), nf.Probe, nf.Status), false)
		}
	}
	if !live {
		return m, nil
	}
	d.step = stepResult
	out := msg.out
	switch {
	case out.Result == 0: // the backend failed before the engine decided anything
		d.failed, d.outcome = true, "fix failed: "+oneLine(fmt.Sprint(msg.err))
	case out.OK():
		d.result, d.outcome = &out, oneLine(out.Line())
		m.setStatus("fixed and verified: "+out.After.Probe+" on "+report.NodeLabel(msg.node), false)
	default:
		d.result, d.failed, d.outcome = &out, true, oneLine(out.Line())
	}
	return m, nil
}

// confirmation is the rule for the fix on screen, the one `fix` applies too.
func (d *fixDialog) confirmation() engine.Confirmation {
	return engine.ConfirmationFor(d.finding, d.fix())
}

// keys are the dialog's bindings for the current step (for the footer).
func (d *fixDialog) keys(k keyMap) []key.Binding {
	switch d.step {
	case stepChoose:
		return []key.Binding{k.Up, k.Down, with(k.Apply, "choose"), k.Deny}
	case stepPreview:
		return []key.Binding{k.Deny}
	case stepConfirm:
		return []key.Binding{with(k.Confirm, "apply"), k.Deny, with(k.Down, "scroll")}
	case stepTypeName:
		return []key.Binding{with(k.Apply, "apply if the name matches"), with(k.Cancel, "cancel")}
	case stepRunning:
		return []key.Binding{with(k.Cancel, "cancel fix")}
	}
	return []key.Binding{k.Dismiss}
}
