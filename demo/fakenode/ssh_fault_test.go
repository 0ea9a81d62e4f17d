package fakenode

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"golang.org/x/crypto/ssh"
)

func TestSSHFaultRefuse(t *testing.T) {
	f := &Faults{}
	s := startTestSSH(t, &sshTestResponder{}, SSHOptions{Faults: f})
	f.Set(FaultSet{Refuse: true})
	if c, err := dialTestSSH(s, sshTestUser); err == nil {
		_ = c.Close()
		t.Fatal("dial succeeded while refusing")
	}
	f.Set(FaultSet{}) // read per connection: the next one is served
	c := mustDialSSH(t, s)
	if _, _, err := runSSH(c, "hostname", nil); err != nil {
		t.Fatalf("after clearing Refuse: %v", err)
	}
}

func TestSSHFaultLatency(t *testing.T) {
	f := &Faults{}
	c := mustDialSSH(t, startTestSSH(t, &sshTestResponder{}, SSHOptions{Faults: f}))
	f.Set(FaultSet{Latency: 200 * time.Millisecond}) // read per command, on a live connection
	for _, cmd := range []string{"hostname", scripts.CommandLine()} {
		start := time.Now()
		if _, _, err := runSSH(c, cmd, []byte("x")); err != nil {
			t.Fatalf("%.20s: %v", cmd, err)
		}
		if d := time.Since(start); d < 200*time.Millisecond {
			t.Errorf("%.20s answered after %v, want >= 200ms", cmd, d)
		}
	}
}

func TestSSHFaultDropMidReply(t *testing.T) {
	f := &Faults{}
	r := &sshTestResponder{}
	c := mustDialSSH(t, startTestSSH(t, r, SSHOptions{Faults: f}))
	f.Set(FaultSet{DropMidReply: true})
	script, _ := testSweep(t)
	out, _, err := runSSH(c, scripts.CommandLine(), []byte(script))
	var missing *ssh.ExitMissingError
	if !errors.As(err, &missing) {
		t.Fatalf("want ExitMissingError (no exit status), got %v", err)
	}
	full := r.Respond(t.Context(), scripts.CommandLine(), []byte(script)).Stdout
	if len(out) > len(full)/2 || !strings.HasPrefix(string(full), string(out)) {
		t.Errorf("got %d bytes, want at most the first half of %d", len(out), len(full))
	}
	if _, _, err := scripts.Split(out); err == nil {
		t.Errorf("Split accepted a reply cut in half")
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("connection not closed after the drop")
	}
}

func TestSSHFaultHang(t *testing.T) {
	f := &Faults{}
	r := &sshTestResponder{}
	s := startTestSSH(t, r, SSHOptions{Faults: f})
	c := mustDialSSH(t, s)
	f.Set(FaultSet{Hang: true})
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := sess.StdinPipe()
	if err := sess.Start(scripts.CommandLine()); err != nil {
		t.Fatal(err)
	}
	_ = in.Close()
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("a hung command finished: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	// The client gives up by closing the session: the server lets go at once.
	_ = sess.Close()
	select {
	case err := <-done:
		var missing *ssh.ExitMissingError
		if !errors.As(err, &missing) {
			t.Errorf("closed hung session: %v, want no exit status", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("session still open 2s after the client closed it")
	}
	if n := r.calls.Load(); n != 0 {
		t.Errorf("Responder called %d times while hanging", n)
	}
	// Close must not wait for a hung command forever.
	f.Set(FaultSet{Hang: true})
	go func() { _, _, _ = runSSH(c, "hostname", nil) }()
	time.Sleep(100 * time.Millisecond)
	closed := make(chan struct{})
	go func() { _ = s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on a hung command")
	}
}

func TestSSHRefusesShellAndPty(t *testing.T) {
	c := mustDialSSH(t, startTestSSH(t, &sshTestResponder{}, SSHOptions{}))
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err == nil {
		t.Error("pty request accepted")
	}
	if err := sess.Shell(); err == nil {
		t.Error("shell request accepted")
	}
	if _, err := c.NewSession(); err != nil {
		t.Errorf("connection unusable after refused requests: %v", err)
	}
	if _, _, err := c.OpenChannel("direct-tcpip", nil); err == nil {
		t.Error("port forwarding channel accepted")
	}
}
