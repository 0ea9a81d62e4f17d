package ssh

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// faultyNode starts a node whose faults the test sets, and a transport to it.
func faultyNode(t *testing.T, timeout time.Duration) (*fakenode.Faults, *fakenode.SSHServer, transport.Transport) {
	t.Helper()
	f := &fakenode.Faults{}
	s := startNode(t, fakenode.SSHOptions{Faults: f})
	cfg := nodeConfig(t, s)
	cfg.Timeout = timeout
	return f, s, newTransport(t, cfg)
}

func sweepCmd(t *testing.T) transport.Command {
	script, _ := testSweep(t, scripts.Snippets()...)
	return transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close() // nothing listens there now
	tr := newTransport(t, transport.Config{Host: "127.0.0.1", Port: port, User: testUser, Password: testPassword, InsecureIgnoreHostKey: true})
	_, err = tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	wantErr(t, err, "connect", "connection refused", "Get-Service sshd")
}

func TestFaultRefuse(t *testing.T) {
	f, _, tr := faultyNode(t, 5*time.Second)
	f.Set(fakenode.FaultSet{Refuse: true})
	_, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	wantErr(t, err, "connect", "closed the connection during the SSH handshake", "OpenSSH/Operational")
	f.Set(fakenode.FaultSet{})
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Errorf("after the node stopped refusing: %v", err)
	}
}

func TestFaultLatency(t *testing.T) {
	f, _, tr := faultyNode(t, 0)
	f.Set(fakenode.FaultSet{Latency: 200 * time.Millisecond})
	start := time.Now()
	if _, err := tr.Run(t.Context(), sweepCmd(t)); err != nil {
		t.Fatalf("slow but in time: %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("answered after %v despite 200ms latency", d)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := tr.Run(ctx, sweepCmd(t))
	if !errors.Is(wantErr(t, err, "run", "no answer within"), context.DeadlineExceeded) {
		t.Errorf("not a deadline error: %v", err)
	}
}

func TestFaultDropMidReplyThenReconnect(t *testing.T) {
	f, _, tr := faultyNode(t, 5*time.Second)
	f.Set(fakenode.FaultSet{DropMidReply: true})
	out, err := tr.Run(t.Context(), sweepCmd(t))
	wantErr(t, err, "run", "connection dropped before the command finished", "rerun")
	if len(out.Stdout) == 0 {
		t.Error("the output that arrived before the drop was not returned")
	}
	if _, _, err := scripts.Split(out.Stdout); err == nil {
		t.Error("a cut reply parsed as a whole sweep")
	}
	f.Set(fakenode.FaultSet{})
	if _, err := tr.Run(t.Context(), sweepCmd(t)); err != nil {
		t.Errorf("the next Run did not reconnect: %v", err)
	}
}

func TestFaultHangPastTimeout(t *testing.T) {
	f, _, tr := faultyNode(t, 300*time.Millisecond)
	f.Set(fakenode.FaultSet{Hang: true})
	start := time.Now()
	_, err := tr.Run(t.Context(), sweepCmd(t))
	te := wantErr(t, err, "run", "no answer within", "--timeout")
	if !errors.Is(te, context.DeadlineExceeded) {
		t.Errorf("not a deadline error: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
		t.Errorf("gave up after %v, want about the 300ms timeout", d)
	}
}

func TestCancelStopsHungCommand(t *testing.T) {
	f, _, tr := faultyNode(t, 0)
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Fatal(err)
	}
	f.Set(fakenode.FaultSet{Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := tr.Run(ctx, sweepCmd(t))
	if !errors.Is(wantErr(t, err, "run", "cancelled"), context.Canceled) {
		t.Errorf("not a cancel: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v to stop the command", d)
	}
	// The connection survives a cancelled session.
	f.Set(fakenode.FaultSet{})
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Errorf("after a cancelled run: %v", err)
	}
}

func TestDialHonoursContext(t *testing.T) {
	// A port that accepts TCP and never speaks SSH: the handshake must not outlive ctx.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tr := newTransport(t, transport.Config{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port,
		User: testUser, Password: testPassword, InsecureIgnoreHostKey: true, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err = tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	te := wantErr(t, err, "connect", "SSH handshake did not finish within", "not WinRM's")
	if !errors.Is(te, context.DeadlineExceeded) {
		t.Errorf("not a deadline error: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("dial gave up after %v, want about 200ms", d)
	}
}

func TestReconnectAfterNodeRestart(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{HostKeySeed: "restart"})
	cfg := nodeConfig(t, s)
	tr := newTransport(t, cfg)
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Fatal(err)
	}
	addr := s.Addr()
	_ = s.Close()
	// Same address, same seed: the node is back with the same host key.
	s2, err := fakenode.StartSSH(t.Context(), &testResponder{}, fakenode.SSHOptions{
		Addr: addr, User: testUser, Password: testPassword, HostKeySeed: "restart"})
	if err != nil {
		t.Skipf("cannot rebind %s: %v", addr, err)
	}
	defer s2.Close()
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Errorf("after the node restarted: %v", err)
	}
}
