package sweep_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/sweep"
)

// TestLinuxSweepIsTheLinuxKeys: the shell sweep produces exactly the Linux node keys'
// files, running the command each key's contract row names where the row is one
// command, and a node of either kind is asked only for its own kind's files.
func TestLinuxSweepIsTheLinuxKeys(t *testing.T) {
	keys := evidence.Names(evidence.NodeKeysOf(evidence.Linux, false))
	if files := scripts.LinuxFiles(); !slices.Equal(slices.Sorted(slices.Values(keys)), slices.Sorted(slices.Values(files))) {
		t.Fatalf("Linux keys %v, Linux sweep files %v", keys, files)
	}
	for _, k := range evidence.NodeKeysOf(evidence.Linux, false) {
		m := k.Meta()
		row, ok := strings.CutPrefix(m.Command, "`")
		row, one := strings.CutSuffix(row, "`")
		if !ok || !one || strings.Contains(row, "`") || strings.HasPrefix(row, "cat /etc") || strings.HasPrefix(row, "cat /run") {
			continue // prose, or a file read (the sweep bounds it with head -c)
		}
		if got, _ := scripts.LinuxCommand(m.Name); got != row {
			t.Errorf("%s: the sweep runs %q, the contract says %q", m.Name, got, row)
		}
	}
	all := evidence.Names(append(evidence.NodeKeys(false), evidence.NodeKeys(true)...))
	linux := sweep.NamesFor(sweep.Linux, all)
	windows := sweep.NamesFor(sweep.Windows, all)
	if !slices.Equal(slices.Sorted(slices.Values(linux)), slices.Sorted(slices.Values(keys))) {
		t.Errorf("a Linux node is asked for %v", linux)
	}
	for _, n := range windows {
		if scripts.IsLinuxFile(n) {
			t.Errorf("a Windows node is asked for %s", n)
		}
	}
	if len(windows)+len(linux) != len(all) || len(sweep.NamesFor("", all)) != len(windows) {
		t.Errorf("%d names split into %d Windows and %d Linux", len(all), len(windows), len(linux))
	}
}
