package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// TestFixAuditWriteFailureIsReported: a fix whose audit record cannot be written (the
// log opens, the write fails: /dev/full) ends with an error that says so, the fix's own
// result kept. Before, the failed write was dropped and the fix reported success.
func TestFixAuditWriteFailureIsReported(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	b := newFixBench(t, "kubelet-service-stopped")
	b.fixer.Audit = &engine.Audit{Path: "/dev/full"}
	f := b.finding(t, "SVC-KUBELET")
	out, err := b.fixer.Apply(context.Background(), f, pick(f, "start-service"), engine.Typed("y"))
	if err == nil || !strings.Contains(err.Error(), "audit record was not written") {
		t.Fatalf("the unwritten audit record was not reported: %v", err)
	}
	if out.Result != engine.Verified {
		t.Errorf("the fix's own result was lost: %s", out.Result)
	}
}
