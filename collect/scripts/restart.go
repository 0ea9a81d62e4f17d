package scripts

import (
	"strconv"
	"strings"
	"time"
)

// DetachedRestart is a restart a fix left to a process of its own (Restart-WtsServiceDetached
// in the prelude): through a HostProcess pod, restarting the kubelet or containerd cuts the
// exec stream the fix runs in, so the fix returns first and the restart comes Delay later.
// Whoever judges the fix must wait for the service to come back before re-probing: a
// re-probe sent at once races the restart (it may see the old process, or be cut by it).
type DetachedRestart struct {
	Service string
	// ProcessID is the service's process when the fix ran (0: unknown); a restart that
	// happened shows another one.
	ProcessID int64
	Delay     time.Duration
}

// DefaultRestartDelay is Restart-WtsServiceDetached's default DelaySec.
const DefaultRestartDelay = 3 * time.Second

// The line Restart-WtsServiceDetached prints, in pieces (the prelude prints
// "$Name (process $svcPid) restarts in $DelaySec s in a process of its own (...)").
const (
	restartLineProcess = " (process "
	restartLineIn      = ") restarts in "
	restartLineTail    = " s in a process of its own"
)

// Line is the line Restart-WtsServiceDetached prints for r (the fake node prints it too).
func (r DetachedRestart) Line() string {
	return r.Service + restartLineProcess + strconv.FormatInt(r.ProcessID, 10) + restartLineIn +
		strconv.Itoa(int(r.Delay/time.Second)) + restartLineTail + " (its restart would cut this exec stream)"
}

// DetachedRestarts reads the restarts a fix's output says it left to a process of its own,
// in order; none when it restarted nothing that way.
func DetachedRestarts(out string) []DetachedRestart {
	var rs []DetachedRestart
	for _, line := range strings.Split(out, "\n") {
		if r, ok := parseRestartLine(strings.TrimSpace(line)); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

func parseRestartLine(line string) (DetachedRestart, bool) {
	name, rest, ok := strings.Cut(line, restartLineProcess)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return DetachedRestart{}, false
	}
	pid, rest, ok := strings.Cut(rest, restartLineIn)
	if !ok {
		return DetachedRestart{}, false
	}
	secs, rest, ok := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(" "+rest, restartLineTail) {
		return DetachedRestart{}, false
	}
	p, err1 := strconv.ParseInt(pid, 10, 64)
	s, err2 := strconv.Atoi(secs)
	if err1 != nil || err2 != nil || p < 0 || s < 0 || s > 3600 {
		return DetachedRestart{}, false
	}
	return DetachedRestart{Service: name, ProcessID: p, Delay: time.Duration(s) * time.Second}, true
}
