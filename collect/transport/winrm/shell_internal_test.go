package winrm

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	mz "github.com/masterzen/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// slowResponder answers after a delay, longer than the OperationTimeout the test sets.
type slowResponder time.Duration

func (d slowResponder) Respond(ctx context.Context, _ string, stdin []byte) fakenode.Reply {
	select {
	case <-time.After(time.Duration(d)):
		return fakenode.Reply{Stdout: stdin}
	case <-ctx.Done():
		return fakenode.Reply{ExitCode: 1}
	}
}

// A command running longer than OperationTimeout makes Windows answer each Receive with
// the w:TimedOut fault; the transport must poll again rather than fail.
func TestReceivePollsWhileRunning(t *testing.T) {
	s, err := fakenode.StartWinRM(t.Context(), slowResponder(700*time.Millisecond),
		fakenode.WinRMOptions{User: "u", Password: "p", AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host, port, _ := net.SplitHostPort(s.Addr())
	p, _ := strconv.Atoi(port)
	tr, err := New(transport.Config{Kind: transport.WinRM, Host: host, Port: p, User: "u", Password: "p", Auth: "basic", AllowBasicOverHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	wt := tr.(*winrmTransport)
	wt.params = mz.NewParameters("PT0.2S", "en-US", envelopeSize)
	out, err := tr.Run(t.Context(), transport.Command{CommandLine: "more", Stdin: []byte("late")})
	if err != nil || string(out.Stdout) != "late" {
		t.Fatalf("slow command: %q, %v", out.Stdout, err)
	}
	// create, command, send, delete, and about 700/200 Receives.
	if n := s.Requests(); n < 4+3 || n > 4+5 {
		t.Errorf("%d requests; want 3 to 5 Receives polling a 700 ms command every 200 ms", n)
	}
}
