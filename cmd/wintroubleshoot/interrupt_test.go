package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// hangingNode accepts connections and never answers, as a node stuck mid-boot does.
// accepted is closed at the first connection.
func hangingNode(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done, first := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for n := 0; ; n++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if n == 0 {
				close(first)
			}
			go func() { <-done; c.Close() }()
		}
	}()
	return l.Addr().String(), first
}

// TestInterruptMidRun: Ctrl-C while the nodes are being swept ends --report and
// snapshot promptly with "interrupted" and exit 130: no report saying the nodes are
// unreachable, and no bundle or spool folder left behind.
func TestInterruptMidRun(t *testing.T) {
	noClusterHere(t)
	t.Setenv("WTS_PASSWORD", "interrupt-pw")
	addr, _ := hangingNode(t)
	dir := t.TempDir()
	access := []string{"--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http", "--node", "win-1=" + addr, "--node", "win-2=" + addr}
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

// TestSIGINTExits130: the real signal path (main's NotifyContext): a built binary
// sweeping a node that never answers, sent SIGINT, says "interrupted" and exits 130.
func TestSIGINTExits130(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds the binary; Windows cannot send SIGINT to a process")
	}
	bin := filepath.Join(t.TempDir(), "wintroubleshoot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	addr, accepted := hangingNode(t)
	cmd := exec.Command(bin, "--report", "--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http", "--node", "win-1="+addr)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=", "WTS_PASSWORD=sigint-pw")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the binary is sweeping (it has connected to the node): by then main has
	// installed its handler. A signal before that would kill it as Go's default does.
	select {
	case <-accepted:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the binary never connected to the node\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 20s after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != report.ExitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 130 and \"interrupted\"", code, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("an interrupted run printed a report:\n%.500s", stdout.String())
	}
}
