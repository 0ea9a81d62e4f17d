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

// The soft memory limit once the fleet's size is known (SizeGCForFleet): what a run holds
// live grows with its nodes (their evidence is kept until the report is written: about
// 0.2 MB a node, 200 MB at 1000 nodes by the collector's trace), and at GOGC 400 the heap
// may grow to five times that before a cycle. Measured with --report over the fake fleet
// (BenchmarkReportCommand's, user+system CPU and peak RSS of the process):
//
//	1000 nodes: 1 GiB limit 14.5 ms/node 867 MiB; 384 MiB limit 14.9 ms/node 451 MiB;
//	            GOGC 100 16.6 ms/node 585 MiB; GOGC 200 14.9 ms/node 767 MiB
//	 200 nodes: 1 GiB limit 15.6 ms/node 285 MiB; 127 MiB limit 16.6 ms/node 193 MiB
//	  10 nodes: 119 MiB whatever the setting (the binary's own pages)
//
// so the limit follows the fleet, at about 1.6 times the live data: fleetBase plus
// fleetPerNode a node, which is where the 1000- and 200-node runs were measured.
const (
	fleetBase    = 64 << 20
	fleetPerNode = 320 << 10
)

// FleetMemoryLimit is the soft memory limit for a run over n nodes.
func FleetMemoryLimit(nodes int) int64 { return fleetBase + int64(max(nodes, 0))*fleetPerNode }

// SizeGCForFleet sets FleetMemoryLimit(nodes), except where the user chose GOMEMLIMIT.
func SizeGCForFleet(nodes int, getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(FleetMemoryLimit(nodes))
	}
}

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
