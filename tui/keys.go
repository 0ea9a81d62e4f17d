package tui

import "charm.land/bubbles/v2/key"

// keyMap holds every binding as data. Matching always uses these (enabled) bindings;
// the footer and the help overlay show a copy with only the bindings that apply now
// (see Model.helpKeys), so the help on screen is always truthful.
type keyMap struct {
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	NextPane, PrevPane, Open                key.Binding
	Filter, Cancel                          key.Binding
	Reprobe, ReprobeAll                     key.Binding
	Fix, Snapshot, Evidence, Copy           key.Binding
	RootCauses, GroupBy                     key.Binding
	Help, CloseHelp, Quit, ForceQuit        key.Binding

	// Dialogs, the filter prompt and the pager.
	Confirm, Deny, Apply, Close, Dismiss key.Binding
}

func defaultKeys() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Up:         b([]string{"k", "up"}, "↑/k", "up"),
		Down:       b([]string{"j", "down"}, "↓/j", "down"),
		Top:        b([]string{"g", "home"}, "g", "top"),
		Bottom:     b([]string{"G", "end"}, "G", "bottom"),
		PageUp:     b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		PageDown:   b([]string{"pgdown", "ctrl+f", "space"}, "pgdn", "page down"),
		NextPane:   b([]string{"tab"}, "tab", "pane"),
		PrevPane:   b([]string{"shift+tab"}, "⇧tab", "pane back"),
		Open:       b([]string{"enter", "right", "l"}, "enter", "open"),
		Filter:     b([]string{"/"}, "/", "filter"),
		Cancel:     b([]string{"esc"}, "esc", "cancel"),
		Reprobe:    b([]string{"r"}, "r", "re-probe"),
		ReprobeAll: b([]string{"R"}, "R", "re-probe all"),
		Fix:        b([]string{"f"}, "f", "fix"),
		Snapshot:   b([]string{"s"}, "s", "snapshot"),
		Evidence:   b([]string{"e"}, "e", "evidence"),
		Copy:       b([]string{"y"}, "y", "copy"),
		RootCauses: b([]string{"c"}, "c", "root causes"),
		GroupBy:    b([]string{"b"}, "b", "by finding"),
		Help:       b([]string{"?"}, "?", "help"),
		CloseHelp:  b([]string{"?", "esc"}, "?/esc", "close help"),
		Quit:       b([]string{"q"}, "q", "quit"),
		ForceQuit:  b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		Confirm:    b([]string{"y", "enter"}, "y/enter", "confirm"),
		Deny:       b([]string{"n", "esc"}, "n/esc", "cancel"),
		Apply:      b([]string{"enter"}, "enter", "apply"),
		Close:      b([]string{"q", "esc"}, "q/esc", "close"),
		Dismiss:    b([]string{"enter", "esc", "q"}, "enter/esc", "close"),
	}
}

// helpKeys is a help.KeyMap: the bindings that apply in the current state.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// with returns a copy of b with its help description replaced.
func with(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// when returns a copy of b enabled only if ok; the help view skips disabled bindings.
func when(b key.Binding, ok bool) key.Binding {
	b.SetEnabled(ok)
	return b
}

// helpKeys builds the footer and overlay help for the current state.
func (m Model) helpKeys() helpKeys {
	k := m.keys
	switch {
	case m.dlg != nil:
		bs := m.dlg.keys(k)
		return helpKeys{short: bs, full: [][]key.Binding{bs}}
	case m.pager != nil:
		nav := []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.PageDown, k.PageUp}
		return helpKeys{short: append([]key.Binding{k.Close}, nav...), full: [][]key.Binding{nav, {k.Close}}}
	case m.filtering:
		bs := []key.Binding{with(k.Apply, "keep filter"), with(k.Cancel, "clear filter")}
		return helpKeys{short: bs, full: [][]key.Binding{bs}}
	case m.showHelp:
		bs := []key.Binding{k.CloseHelp, k.Quit}
		return helpKeys{short: bs, full: [][]key.Binding{bs}}
	}

	f, hasF := m.selectedFinding()
	node := m.selectedNode()
	busy := m.busy()
	cancel := with(k.Cancel, "cancel")
	if !busy {
		cancel = with(k.Cancel, "clear filter")
	}
	fix := k.Fix
	if m.opts.Fixer == nil {
		fix = with(fix, "fix (unavailable)")
	}
	snap := k.Snapshot
	if m.opts.Snapshot == nil {
		snap = with(snap, "snapshot (unavailable)")
	}
	hasFix := hasF && f.Fix != nil
	hasEv := hasF && len(f.Evidence) > 0
	canProbe := m.opts.Backend != nil
	nodeIdle := node != nil && node.state == nodeIdle
	esc := busy || m.store.query != ""

	short := []key.Binding{
		when(cancel, esc), when(fix, hasFix), when(k.Evidence, hasEv), when(k.Copy, hasF),
		k.Filter, when(k.Reprobe, canProbe && nodeIdle), k.Help, k.Quit, k.NextPane,
	}
	full := [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown, k.NextPane, k.PrevPane, k.Open},
		{k.Filter, when(cancel, esc), when(k.Reprobe, canProbe && nodeIdle), when(k.ReprobeAll, canProbe),
			when(snap, m.snap == nil)},
		{when(fix, hasFix), when(k.Evidence, hasEv), when(k.Copy, hasF), k.RootCauses, m.groupByKey(), k.Help, k.Quit, k.ForceQuit},
	}
	return helpKeys{short: short, full: full}
}

// groupByKey is b, described as what it switches to (short: the help's columns must
// fit 80 columns).
func (m Model) groupByKey() key.Binding {
	if m.grouped {
		return with(m.keys.GroupBy, "by node")
	}
	return m.keys.GroupBy
}
