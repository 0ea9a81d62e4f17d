package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// A fix that restarts the kubelet or containerd through a HostProcess pod hands the
// restart to a process of its own and returns first (scripts.DetachedRestart): the
// restart would cut the exec stream the fix runs in. Re-probing at once would race it:
// the re-probe's pod or exec may be cut, or see the old process. So before the re-probe
// the Fixer waits, bounded, until each restarted service answers again: a sweep of
// services.json through the node's transport gets through (its exec needs the kubelet
// and containerd) and shows the service Running as another process than before.
const (
	// restartWait bounds the whole wait; past it the fix is reported not verified.
	restartWait = 3 * time.Minute
	// restartTry bounds one attempt, restartEvery spaces them.
	restartTry   = 30 * time.Second
	restartEvery = time.Second
)

// awaitRestarts waits until the services rs restarted answer on node again; nil at once
// when there are none.
func (x *Fixer) awaitRestarts(ctx context.Context, node string, rs []scripts.DetachedRestart) error {
	if len(rs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, restartWait)
	defer cancel()
	var delay time.Duration
	for _, r := range rs {
		delay = max(delay, r.Delay)
	}
	t := x.Targets[node]
	// One transport for every attempt: a new exec each time, in the same pod, which
	// outlives both restarts; a pod that was not made yet is made by the next attempt.
	tr, err := x.Engine.Dial(ctx, t.Transport)
	if err != nil {
		return fmt.Errorf("reconnecting to %s after the restart of %s: %w", node, restartNames(rs), err)
	}
	defer tr.Close()
	wait := delay
	var last error
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s on %s did not answer again within %s of the fix: %w", restartNames(rs), node, restartWait, errors.Join(last, ctx.Err()))
		case <-time.After(wait):
		}
		wait = restartEvery
		actx, acancel := context.WithTimeout(ctx, restartTry)
		files, err := sweep.Run(actx, tr, sweep.Request{Names: []string{evidence.FileServices}, OS: x.Engine.osOf(t), User: t.Transport.User})
		acancel()
		if err != nil {
			last = err
			continue
		}
		if last = notRestarted(files, rs); last == nil {
			return nil
		}
	}
}

// notRestarted says which of rs services.json does not show Running as a new process.
func notRestarted(files map[string][]byte, rs []scripts.DetachedRestart) error {
	b, ok := files[evidence.FileServices]
	if !ok {
		return fmt.Errorf("services.json did not arrive: %s", strings.TrimSpace(string(files[evidence.FileServices+evidence.ErrSuffix])))
	}
	ss, err := decode.DecodeServices(evidence.FileServices, b)
	if err != nil {
		return err
	}
	var pending []string
	for _, r := range rs {
		s, ok := decode.FindService(ss, r.Service)
		switch {
		case !ok:
			pending = append(pending, r.Service+" is not listed")
		case s.Status != "Running":
			pending = append(pending, fmt.Sprintf("%s is %s", r.Service, s.Status))
		case r.ProcessID != 0 && s.ProcessId == r.ProcessID:
			pending = append(pending, fmt.Sprintf("%s still runs as process %d", r.Service, r.ProcessID))
		}
	}
	if len(pending) > 0 {
		return errors.New(strings.Join(pending, "; "))
	}
	return nil
}

func restartNames(rs []scripts.DetachedRestart) string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Service)
	}
	return strings.Join(names, " and ")
}

// awaitFix waits for the restarts a fix's output says it left to a process of its own.
func (x *Fixer) awaitFix(ctx context.Context, node, out string) error {
	return x.awaitRestarts(ctx, node, scripts.DetachedRestarts(out))
}
