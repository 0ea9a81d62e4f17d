package engine

import (
	"context"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/sweep"
)

// eachPeersFirst is Each in two rounds: the indexes first says are first, then the rest.
// Linux workers go first: a Windows node's NET-ROUTES reads their routes back (the way
// back from its pods), so judging it while they were still being swept would judge it
// without them, and a live run would differ from analyze of the same evidence. Windows
// nodes read nothing of each other, so within a round order does not matter.
func eachPeersFirst(ctx context.Context, limit, n int, first func(i int) bool, do func(ctx context.Context, i int), skipped func(i int, err error)) {
	var rounds [2][]int
	for i := range n {
		if first(i) {
			rounds[0] = append(rounds[0], i)
		} else {
			rounds[1] = append(rounds[1], i)
		}
	}
	for _, idx := range rounds {
		Each(ctx, limit, len(idx), func(ctx context.Context, j int) { do(ctx, idx[j]) }, func(j int, err error) {
			if skipped != nil {
				skipped(idx[j], err)
			}
		})
	}
}

// isLinux says whether a target is a Linux worker, as the sweep will treat it.
func (e *Engine) isLinux(t Target) bool { return e.osOf(t) == sweep.Linux }
