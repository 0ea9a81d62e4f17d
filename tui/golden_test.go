package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/golden"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// requireGolden compares got with testdata/<name>.golden (go test ./tui -update rewrites it).
func requireGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

// TestViewGoldens renders the main states at 80x24 and 120x40, colour stripped. The
// spinner does not tick in tests, so frames are fixed.
func TestViewGoldens(t *testing.T) {
	states := []struct {
		name string
		keys []tea.KeyPressMsg
		init bool // run the first sweep
	}{
		{name: "pending"},
		{name: "main", init: true},
		{name: "win-b", init: true, keys: []tea.KeyPressMsg{runeKey('j')}},
		{name: "detail", init: true, keys: []tea.KeyPressMsg{kTab, runeKey('j'), kTab}},
		{name: "filter", init: true, keys: append([]tea.KeyPressMsg{runeKey('/')}, typeText("pass")...)},
		{name: "fix-confirm", init: true, keys: []tea.KeyPressMsg{kTab, runeKey('j'), runeKey('f')}},
		{name: "fix-disruptive", init: true, keys: []tea.KeyPressMsg{runeKey('f'), runeKey('y')}},
		{name: "fix-verified", init: true, keys: []tea.KeyPressMsg{kTab, runeKey('j'), runeKey('f'), runeKey('y')}},
		{name: "help", init: true, keys: []tea.KeyPressMsg{runeKey('?')}},
		{name: "evidence", init: true, keys: []tea.KeyPressMsg{kTab, runeKey('j'), runeKey('e')}},
		{name: "by-finding", init: true, keys: []tea.KeyPressMsg{runeKey('b')}},
		{name: "by-finding-help", init: true, keys: []tea.KeyPressMsg{runeKey('b'), runeKey('?')}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, s := range states {
			name := fmt.Sprintf("%s_%dx%d", s.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m, _, _, _ := standard(t)
				mm, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m = mm.(Model)
				if s.init {
					m = started(t, m)
				}
				m = press(t, m, s.keys...).Model
				got := ansi.Strip(m.View().Content)
				if n := strings.Count(got, "\n") + 1; n != size[1] {
					t.Errorf("%d lines, want %d", n, size[1])
				}
				requireGolden(t, name, got+"\n")
			})
		}
	}
}
