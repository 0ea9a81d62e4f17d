package main

import (
	"testing"
)

// noClusterHere makes the run find no kubeconfig at all (no flag, no $KUBECONFIG, an
// empty home): the "no cluster at hand" case, where a --node list is probed alone. A
// --kubeconfig naming a missing file is not that case: it is bad input (exit 2).
func noClusterHere(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
}
