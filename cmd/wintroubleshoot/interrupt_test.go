package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/probes/report"
)

// hangingNode accepts connections and never answers, as a node stuck mid-boot does.
func hangingNode(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	return l.Addr().String()
}

// TestInterruptMidRun: Ctrl-C while the nodes are being swept ends --report and
// snapshot promptly with "interrupted" and exit 130: no report saying the nodes are
// unreachable, and no bundle or spool folder left behind.
func TestInterruptMidRun(t *testing.T) {
	noClusterHere(t)
	t.Setenv("WTS_PASSWORD", "interrupt-pw")
	addr := hangingNode(t)
	dir := t.TempDir()
	access := []string{"--transport", "winrm", "--winrm-auth", "basic", "--node", "win-1=" + addr, "--node", "win-2=" + addr}
	for _, args := range [][]string{
		append([]string{"--report", "-o", "markdown"}, access...),
		append([]string{"snapshot", filepath.Join(dir, "snap.tar.gz")}, access...),
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		streams, _, out, errOut := genericiooptions.NewTestIOStreams()
		start := time.Now()
		code := Run(ctx, streams, args)
		cancel()
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%v: took %s to stop after the interrupt", args[0], took)
		}
		if code != report.ExitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("%v: exit %d, stderr %q; want 130 and \"interrupted\"", args[0], code, errOut)
		}
		if strings.Contains(out.String()+errOut.String(), "unreachable") || strings.Contains(out.String(), "REACH") {
			t.Errorf("%v: the interrupt was reported as the nodes being unreachable:\n%s\n%s", args[0], out, errOut)
		}
		if args[0] == "--report" && out.Len() > 0 {
			t.Errorf("--report: an interrupted run printed a report:\n%.500s", out)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("an interrupted snapshot left %d entries behind (%s...)", len(left), left[0].Name())
	}
}
