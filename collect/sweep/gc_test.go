package sweep

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestTuneGCKeepsTheUsersChoice(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	restore := TuneGC(getenv)
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("GC percent = %d, want %d", got, GCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("memory limit = %d, want %d", got, MemoryLimit)
	}
	debug.SetGCPercent(GCPercent)
	restore()
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Errorf("after restore GC percent = %d, want the previous 100", got)
	}
	debug.SetGCPercent(100)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after restore memory limit = %d, want none", got)
	}

	env["GOGC"], env["GOMEMLIMIT"] = "50", "64MiB"
	debug.SetGCPercent(50)
	restore = TuneGC(getenv)
	defer restore()
	if got := debug.SetGCPercent(-1); got != 50 {
		t.Errorf("with GOGC=50 the percent became %d", got)
	}
	debug.SetGCPercent(50)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
	debug.SetGCPercent(100)
}

func TestSizeGCForFleet(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	SizeGCForFleet(1000, func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != FleetMemoryLimit(1000) || got < 350<<20 || got > 400<<20 {
		t.Errorf("limit for 1000 nodes = %d MiB, want the measured 384 or so", got>>20)
	}
	SizeGCForFleet(5, func(k string) string {
		if k == "GOMEMLIMIT" {
			return "2GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != FleetMemoryLimit(1000) {
		t.Errorf("with GOMEMLIMIT set the limit changed to %d", got)
	}
}
