package fakenode

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

func startNodeWinRM(t *testing.T, n *Node) *WinRMServer {
	t.Helper()
	s, err := StartWinRM(t.Context(), n, WinRMOptions{User: winrmTestUser, Password: winrmTestPassword, AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestWinRMStartsAtCommandTime: a command that reads no stdin runs when the Command
// request arrives, as on Windows, not when a Receive comes (the fake once waited 150 ms
// for stdin on every command, which made other clients look slow).
func TestWinRMStartsAtCommandTime(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: fstest.MapFS{}, Node: "win-1"})
	c := newWinRMRaw(t, startNodeWinRM(t, n))
	c.shell("hostname") // Create and Command only: no Send, no Receive
	for deadline := time.Now().Add(5 * time.Second); len(n.Commands()) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not run before a Receive asked for its output")
		}
	}
	if got := n.Commands()[0].CommandLine; got != "hostname" {
		t.Fatalf("ran %q", got)
	}
}

// TestWinRMConsoleModeStdinIsRefused: masterzen's client sends stdin in console mode
// (WINRS_CONSOLEMODE_STDIN=TRUE, hard-coded); the node records the mode, and a sweep
// bootstrap, which reads stdin to its end, fails with why instead of hanging.
func TestWinRMConsoleModeStdinIsRefused(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: fstest.MapFS{"nodes/win-1/host.json": {Data: []byte("{}")}}, Node: "win-1"})
	s := startNodeWinRM(t, n)
	sweep, err := scripts.Sweep([]scripts.Call{{Name: "host.json"}})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code, err := masterzenClient(t, s, false, winrmTestPassword).RunWithInput(scripts.CommandLine(), &stdout, &stderr, strings.NewReader(sweep))
	if err != nil || code != 1 || !strings.Contains(stderr.String(), "WINRS_CONSOLEMODE_STDIN=TRUE") {
		t.Fatalf("code %d err %v stderr %q", code, err, stderr.String())
	}
	cmds := s.Commands()
	if len(cmds) != 1 || !cmds[0].ConsoleModeStdin || cmds[0].StdinBytes != len(sweep) {
		t.Fatalf("recorded %+v", cmds)
	}
}
