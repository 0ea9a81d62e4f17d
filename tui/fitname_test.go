package tui

import "testing"

// TestFitName: a long "scenario.node" name keeps its node part, so the rows of one mixed
// cluster stay told apart in a narrow list; a name that fits is left alone.
func TestFitName(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"win-1", 20, "win-1"},
		{"mixed-hardway-route-missing.node-0", 24, "mixed-hardway-ro….node-0"},
		{"ip-10-0-45-67.us-west-2.compute.internal", 30, "ip-10-0-45-67.us-wes….internal"},
		{"layout-aks-kubelet-stopped", 12, "layout-aks-…"},
		{"a.b", 2, "a…"},
	} {
		if got := fitName(c.in, c.w); got != c.want {
			t.Errorf("fitName(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
