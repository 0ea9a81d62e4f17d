package engine

import (
	"context"

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
