package main

import (
	"strings"
	"testing"
)

// TestCompareTwoScenarios: the healthy SDN node against the same layout without a podCIDR
// (two scenarios of one cluster layout): the files that differ are listed, those read by a
// probe judging the two differently first; a node against itself differs in nothing.
func TestCompareTwoScenarios(t *testing.T) {
	healthy, broken := scenarioDir(t, "healthy-sdn-l2bridge-docker"), scenarioDir(t, "podcidr-empty")
	code, out, errOut := run(t, "compare", "win-1", "win-1", "--from", healthy, "--from-b", broken)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"hns-networks.json", "cni-config.json", "judged differently by: HNS-NETWORK"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run(t, "compare", "win-1", "win-1", "--from", healthy); code != 0 || !strings.Contains(out, "no evidence differs") {
		t.Errorf("a node against itself: exit %d\n%s", code, out)
	}
	if code, _, errOut := run(t, "compare", "win-1", "win-9", "--from", healthy); code != 2 || !strings.Contains(errOut, "no evidence for node win-9") {
		t.Errorf("unknown node: exit %d, %s", code, errOut)
	}
	if code, _, _ := run(t, "compare", "win-1", "win-1"); code != 2 {
		t.Errorf("without --from: exit %d, want 2", code)
	}
}
