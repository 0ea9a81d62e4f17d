package sweep

import (
	"runtime/debug"
)

// GC settings for a process that sweeps fleets. A sweep's garbage is per-request buffers
// (envelopes, reply bodies, framing) while its live heap stays small: the evidence kept
// and a few replies in flight. At Go's default target (100) the collector then ran
// every few MiB allocated, about 40 cycles per 1000 nodes, and was a sixth of the
// client's CPU per node; at 400 it is a quarter of that (BenchmarkFleetSweep: 1.0-1.2 ->
// 0.7-0.9 ms per node at 1000 nodes, peak heap 6 -> 16 MiB). The soft limit keeps a
// large fleet's heap (its evidence is held until written) from growing to five times
// the live data: near the limit the collector runs as often as it needs to. esbuild's
// main sets the same target for the same reason.
const (
	GCPercent   = 400
	MemoryLimit = 1 << 30
)

// TuneGC applies GCPercent and MemoryLimit, except where the user chose GOGC or
// GOMEMLIMIT (getenv is os.Getenv), and returns the function that restores what was set.
func TuneGC(getenv func(string) string) (restore func()) {
	prevPercent, prevLimit := -2, int64(-1)
	if getenv("GOGC") == "" {
		prevPercent = debug.SetGCPercent(GCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		prevLimit = debug.SetMemoryLimit(MemoryLimit)
	}
	return func() {
		if prevPercent != -2 {
			debug.SetGCPercent(prevPercent)
		}
		if prevLimit >= 0 {
			debug.SetMemoryLimit(prevLimit)
		}
	}
}
