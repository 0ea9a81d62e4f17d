package main

import (
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped probe ID, flag or node name gets the closest names; probe
// IDs are taken whatever their case.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"SVC-KUBLET", []string{"SVC-KUBELET", "SVC-KUBEPROXY", "NODE-READY"}, ", did you mean SVC-KUBELET?"},
		{"win-l", []string{"win-1", "win-2", "linux-1"}, ", did you mean win-1 or win-2?"},
		{"--nod", []string{"--node", "--node-user", "--no-audit"}, ", did you mean --node?"},
		{"zzzzzz", []string{"win-1"}, ""},
	} {
		if got := didYouMean(tc.word, tc.cands); got != tc.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	code, _, errOut := run(t, "fix", "SVC-KUBLET", "--node", "win-1=192.0.2.1")
	if code != 2 || !strings.Contains(errOut, "did you mean SVC-KUBELET?") {
		t.Errorf("fix SVC-KUBLET: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, "--report", "--nod", "win-1=192.0.2.1")
	if code != 2 || !strings.Contains(errOut, "did you mean --node?") {
		t.Errorf("--nod: exit %d: %s", code, errOut)
	}
}

// TestProbeIDsAnyCase: fix svc-kubelet is fix SVC-KUBELET.
func TestProbeIDsAnyCase(t *testing.T) {
	fake, access := fakeFixNode(t, "kubelet-service-stopped")
	code, out, errOut := run(t, append([]string{"fix", "svc-kubelet", "--yes"}, access...)...)
	if code != 0 || fixCalls(fake) == 0 {
		t.Fatalf("fix svc-kubelet: exit %d, %d fix calls\n%s\n%s", code, fixCalls(fake), out, errOut)
	}
}
