package engine

import (
	"context"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"

	"golang.org/x/sync/errgroup"
)

// DefaultConcurrency is how many nodes are swept at once when a caller says <= 0.
const DefaultConcurrency = 8

// Each runs do for the indexes 0..n-1, at most limit at once (<= 0 means
// DefaultConcurrency), and returns when every call has returned. It is the one bounded
// fan-out of the engine: sweeps, fleet probes and snapshots all go through it.
//
// On cancel it behaves one way for everyone: a call already running gets the cancelled
// ctx and is expected to return promptly (transports honour ctx); an index whose turn
// had not come when ctx was done is not run, and skipped(i, ctx.Err()) is called for it
// instead, so the caller reports that node rather than silently dropping it. Every index
// gets exactly one of do or skipped. skipped may be nil when the caller has nothing to
// report. Both are called from several goroutines.
func Each(ctx context.Context, limit, n int, do func(ctx context.Context, i int), skipped func(i int, err error)) {
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	skip := func(i int, err error) {
		if skipped != nil {
			skipped(i, err)
		}
	}
	var g errgroup.Group
	g.SetLimit(limit)
	for i := range n {
		if err := ctx.Err(); err != nil {
			skip(i, err)
			continue
		}
		// Go blocks while limit calls run; a cancelled ctx makes them return, so the
		// loop never waits long once ctx is done.
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				skip(i, err) // cancelled while it waited for a slot
				return nil
			}
			do(ctx, i)
			return nil
		})
	}
	_ = g.Wait() // the calls return no errors: each reports its own outcome
}

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
func (e *Engine) isLinux(t Target) bool { return e.osOf(t) == evidence.Linux }
