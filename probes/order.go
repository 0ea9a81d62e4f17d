package probes

import (
	"cmp"
	"strings"
)

// Compare is the one order of findings every front end shows (the engine's results,
// every report format, the screen): by node (cluster-wide "" first), then worst status
// first, then an unreachable node's REACH finding before the rest (it explains them),
// then probe ID. report.Sort folds consequences under their causes on top of it.
func Compare(a, b Finding) int {
	return cmp.Or(
		strings.Compare(a.Node, b.Node),
		cmp.Compare(b.Status, a.Status),
		-compareBool(a.Probe == ReachID, b.Probe == ReachID),
		strings.Compare(a.Probe, b.Probe),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
