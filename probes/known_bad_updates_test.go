package probes

import (
	"strings"
	"testing"
)

// TestKnownBadUpdatesSourced: the known-bad table is data, and every row carries what the
// verdict rests on: the breaking and the fixing update with their builds, a non-empty
// range that ends before the fix, and at least one source naming an issue thread.
func TestKnownBadUpdatesSourced(t *testing.T) {
	rows := knownBadUpdates()
	if len(rows) == 0 {
		t.Fatal("empty table")
	}
	for _, r := range rows {
		switch {
		case !strings.HasPrefix(r.KB, "KB") || !strings.HasPrefix(r.FixKB, "KB"):
			t.Errorf("%+v: the breaking and the fixing update must be named by KB", r)
		case r.Build == 0 || r.FirstUBR > r.LastUBR || r.LastUBR >= r.FixUBR:
			t.Errorf("%s: range %d.%d-%d and fix %d must be ordered", r.KB, r.Build, r.FirstUBR, r.LastUBR, r.FixUBR)
		case r.What == "":
			t.Errorf("%s: says nothing of what breaks", r.KB)
		}
		cited := false
		for _, s := range r.Sources {
			cited = cited || strings.Contains(s, "#")
		}
		if !cited {
			t.Errorf("%s: no source naming an issue thread: %q", r.KB, r.Sources)
		}
	}
}
