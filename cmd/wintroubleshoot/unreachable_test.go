package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestUnreachableClusterIsNoDemo: a ~/.kube/config whose server does not answer is the
// user's cluster, not "no cluster": the default command says which context and server did
// not answer and how to check it, and does not open the demo fleet (before, it opened the
// 115-node demo and exited 0, the reason shown only after quitting).
func TestUnreachableClusterIsNoDemo(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	// A port that was free a moment ago: connections to it are refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	kc := `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: "https://` + addr + `", insecure-skip-tls-verify: true}
users:
- name: me
  user: {token: abc}
contexts:
- name: prod-ctx
  context: {cluster: prod, user: me}
current-context: prod-ctx
`
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	// A process of its own: client-go reads $HOME once, when the process starts.
	bin := buildPlain(t)
	cmd := exec.Command(bin, "--request-timeout", "5s")
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=")
	// The screen opens only on a terminal: give it one, as a person's shell would, so
	// that what this run shows is what a person sees (stderr kept apart to read it).
	ptmx, tty, perr := pty.Open()
	if perr != nil {
		t.Skipf("no pseudo-terminal: %v", perr)
	}
	defer ptmx.Close()
	var so strings.Builder
	copied := make(chan struct{})
	go func() { io.Copy(&so, ptmx); close(copied) }()
	var se strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &se
	err = cmd.Run()
	tty.Close() // the copy ends (EIO) once no process holds the terminal
	<-copied
	code := cmd.ProcessState.ExitCode()
	stdout, stderr := so.String(), se.String()
	if err != nil && code < 0 {
		t.Fatal(err)
	}
	if code != report.ExitNothingJudged {
		t.Errorf("exit %d, want %d", code, report.ExitNothingJudged)
	}
	for _, want := range []string{`context "prod-ctx"`, addr, "kubectl --context prod-ctx cluster-info", "wintroubleshoot demo"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "opening the demo fleet") || stdout != "" {
		t.Errorf("the demo opened:\nstdout %q\nstderr %s", stdout, stderr)
	}
}

// buildPlain builds the binary once per test that needs a process of its own.
func buildPlain(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "wintroubleshoot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	return bin
}
