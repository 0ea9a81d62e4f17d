package winrm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// faultyNode is an HTTPS node with NTLM (the common production setup) and a fault switch.
func faultyNode(t *testing.T, set fakenode.FaultSet) (*fakenode.WinRMServer, transport.Config, *fakenode.Faults) {
	t.Helper()
	faults := &fakenode.Faults{}
	faults.Set(set)
	s := startNode(t, fakenode.WinRMOptions{TLS: true, Faults: faults})
	return s, configFor(t, s, "ntlm"), faults
}

var echo = transport.Command{CommandLine: "more", Stdin: []byte("hello")}

func TestFaultLatency(t *testing.T) {
	_, cfg, _ := faultyNode(t, fakenode.FaultSet{Latency: 50 * time.Millisecond})
	start := time.Now()
	if out, err := newTransport(t, cfg).Run(t.Context(), echo); err != nil || string(out.Stdout) != "hello" {
		t.Fatalf("slow node within --timeout: %q, %v", out.Stdout, err)
	}
	if d := time.Since(start); d < 6*50*time.Millisecond {
		t.Errorf("6 requests with 50 ms latency took only %v", d)
	}
	// Slower than --timeout: a clear timeout, quickly, and the shell cleaned up after.
	// (Which step the deadline lands in depends on the machine's load.)
	s, cfg, faults := faultyNode(t, fakenode.FaultSet{Latency: 300 * time.Millisecond})
	cfg.Timeout = time.Second
	tr := newTransport(t, cfg)
	start = time.Now()
	_, err := tr.Run(t.Context(), echo)
	te := asError(t, err, "", "slower than --timeout (1s)")
	if !errors.Is(te, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("timeout after %v: %v", time.Since(start), err)
	}
	faults.Set(fakenode.FaultSet{})
	_ = tr.Close()
	// A deadline inside Create may cut the answer carrying the ShellId: nothing to delete.
	if n := s.OpenShells(); n != 0 && te.Op != "create shell" {
		t.Errorf("%d shells left open after the timeout", n)
	}
}

func TestFaultRefuse(t *testing.T) {
	_, cfg, _ := faultyNode(t, fakenode.FaultSet{Refuse: true})
	_, err := newTransport(t, cfg).Run(t.Context(), echo)
	asError(t, err, "connect", "closed it without answering")
}

func TestFaultDropMidReply(t *testing.T) {
	_, cfg, _ := faultyNode(t, fakenode.FaultSet{DropMidReply: true})
	_, err := newTransport(t, cfg).Run(t.Context(), echo)
	te := asError(t, err, "receive output", "dropped mid-reply")
	if !strings.Contains(te.Err.Error(), "unexpected EOF") {
		t.Errorf("cause %v, want the unexpected EOF", te.Err)
	}
}

func TestFaultHangPastTimeout(t *testing.T) {
	s, cfg, _ := faultyNode(t, fakenode.FaultSet{Hang: true})
	cfg.Timeout = 500 * time.Millisecond
	tr := newTransport(t, cfg)
	start := time.Now()
	_, err := tr.Run(t.Context(), echo)
	te := asError(t, err, "receive output", "slower than --timeout")
	if !errors.Is(te, context.DeadlineExceeded) {
		t.Errorf("cause %v, want the deadline", te.Err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Run returned %v after a 500 ms timeout", d)
	}
	_ = tr.Close() // waits for the background Signal and Delete
	if n := s.OpenShells(); n != 0 {
		t.Errorf("%d shells left open after the hung command", n)
	}
}

func TestCancelStopsHungCommand(t *testing.T) {
	s, cfg, _ := faultyNode(t, fakenode.FaultSet{Hang: true})
	tr := newTransport(t, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := tr.Run(ctx, echo)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run returned %v after cancel at 200 ms", d)
	}
	_ = tr.Close()
	if n := s.OpenShells(); n != 0 {
		t.Errorf("%d shells left open after cancel", n)
	}
}

func TestShellQuota(t *testing.T) {
	faults := &fakenode.Faults{}
	faults.Set(fakenode.FaultSet{Hang: true})
	s := startNode(t, fakenode.WinRMOptions{TLS: true, MaxShellsPerUser: 1, Faults: faults})
	tr := newTransport(t, configFor(t, s, "ntlm"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	held := make(chan error, 1)
	go func() { _, err := tr.Run(ctx, echo); held <- err }()
	for s.OpenShells() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, err := tr.Run(t.Context(), echo)
	asError(t, err, "create shell", "MaxShellsPerUser")
	cancel()
	if err := <-held; !errors.Is(err, context.Canceled) {
		t.Errorf("held Run: %v", err)
	}
}

func TestEnvelopeTooLarge(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{TLS: true, MaxEnvelopeSizeKB: 64})
	tr := newTransport(t, configFor(t, s, "basic"))
	_, err := tr.Run(t.Context(), transport.Command{CommandLine: "more", Stdin: make([]byte, 200<<10)})
	asError(t, err, "send stdin", "MaxEnvelopeSizekb")
	// Small stdin still fits a 64 KB limit.
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "more", Stdin: make([]byte, 10<<10)}); err != nil {
		t.Errorf("10 KB of stdin under a 64 KB limit: %v", err)
	}
}
