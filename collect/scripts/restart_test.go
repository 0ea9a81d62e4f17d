package scripts

import (
	"strings"
	"testing"
	"time"
)

// TestDetachedRestartLine: the line the engine reads to wait for a restart is the one
// Restart-WtsServiceDetached prints (same words, the service's process ID, its default
// delay), and only that line reads as one.
func TestDetachedRestartLine(t *testing.T) {
	for _, want := range []string{
		`"$Name (process $svcPid) restarts in $DelaySec s in a process of its own (its restart would cut this exec stream)"`,
		`[int]$DelaySec = ` + strings.TrimSuffix(DefaultRestartDelay.String(), "s"),
		`Get-CimInstance Win32_Service | Where-Object { $_.Name -eq $Name }`,
	} {
		if !strings.Contains(helpers, want) {
			t.Errorf("Restart-WtsServiceDetached lacks %q", want)
		}
	}
	r := DetachedRestart{Service: "containerd", ProcessID: 2288, Delay: 3 * time.Second}
	out := "Image is up to date for sha256:38c6\r\n" + r.Line() + "\r\nkubelet (process 0) restarts in 3 s in a process of its own (its restart would cut this exec stream)\r\n"
	got := DetachedRestarts(out)
	if len(got) != 2 || got[0] != r || got[1] != (DetachedRestart{Service: "kubelet", Delay: 3 * time.Second}) {
		t.Fatalf("DetachedRestarts = %+v", got)
	}
	for _, not := range []string{
		"containerd restarts in 3 s in a process of its own",       // the old line: no process
		"the pod (process 12) restarts in 3 s in a process of its", // a name with a space
		"containerd (process x) restarts in 3 s in a process of its own",
		"containerd (process 1) restarts in 3 s, done",
		"Restart-Service containerd -Force",
	} {
		if rs := DetachedRestarts(not); len(rs) != 0 {
			t.Errorf("%q reads as a restart: %+v", not, rs)
		}
	}
}
