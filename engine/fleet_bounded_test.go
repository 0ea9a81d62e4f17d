package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestEachBoundsConcurrency(t *testing.T) {
	var running, peak atomic.Int32
	var done atomic.Int32
	Each(context.Background(), 3, 20, func(context.Context, int) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		done.Add(1)
	}, func(i int, err error) { t.Errorf("index %d skipped: %v", i, err) })
	if done.Load() != 20 || peak.Load() > 3 || peak.Load() < 2 {
		t.Fatalf("ran %d, at most %d at once; want 20 with at most 3", done.Load(), peak.Load())
	}
}

// TestEachCancel: indexes whose turn had not come are reported through skipped, never
// dropped; the running ones see the cancellation; each index is seen exactly once.
func TestEachCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		seen := map[int]string{}
		mark := func(i int, how string) {
			mu.Lock()
			defer mu.Unlock()
			if prev, ok := seen[i]; ok {
				t.Errorf("index %d both %s and %s", i, prev, how)
			}
			seen[i] = how
		}
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		Each(ctx, 2, 10, func(ctx context.Context, i int) {
			<-ctx.Done() // a sweep that only ends when cancelled
			mark(i, "ran")
		}, func(i int, err error) {
			if err != context.Canceled {
				t.Errorf("skipped %d with %v", i, err)
			}
			mark(i, "skipped")
		})
		ran := 0
		for _, how := range seen {
			if how == "ran" {
				ran++
			}
		}
		if len(seen) != 10 || ran != 2 {
			t.Fatalf("seen %d indexes, %d ran; want all 10 with the 2 running ones run", len(seen), ran)
		}
	})
}

func TestEachAlreadyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var skipped atomic.Int32
	Each(ctx, 0, 5, func(context.Context, int) { t.Error("ran after cancel") }, func(int, error) { skipped.Add(1) })
	if skipped.Load() != 5 {
		t.Fatalf("skipped %d of 5", skipped.Load())
	}
}
