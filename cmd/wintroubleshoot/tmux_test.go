package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxTerm is one program running in a real terminal (tmux), read as a person sees it.
type tmuxTerm struct {
	t    *testing.T
	sock string
}

func startTerm(t *testing.T, dir, command string) *tmuxTerm {
	t.Helper()
	tm := &tmuxTerm{t: t, sock: filepath.Join(dir, "tmux-"+strings.ReplaceAll(t.Name(), "/", "_")+".sock")}
	env := "env -u KUBECONFIG HOME=" + dir + " NO_COLOR=1 TERM=xterm-256color PAGER=cat "
	tm.run("new-session", "-d", "-s", "wts", "-x", "120", "-y", "40", env+command+"; echo EXITED $?; sleep 30")
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) run(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (tm *tmuxTerm) keys(keys ...string) {
	for _, k := range keys {
		tm.run("send-keys", "-t", "wts", k)
		time.Sleep(100 * time.Millisecond)
	}
}

func (tm *tmuxTerm) screen() string { return tm.run("capture-pane", "-p", "-t", "wts") }

func (tm *tmuxTerm) waitFor(what string, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s := tm.screen(); ok(s) {
			return s
		}
		time.Sleep(200 * time.Millisecond)
	}
	tm.t.Fatalf("waiting for %s; the screen shows:\n%s", what, tm.screen())
	return ""
}

func has(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

func buildBinary(t *testing.T) (dir, bin string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing in CI: .ci/run installs it")
		}
		t.Skip("tmux not installed (apt-get install tmux)")
	}
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "wintroubleshoot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	return dir, bin
}

// TestTmuxDemo drives the real binary in a real terminal.
func TestTmuxDemo(t *testing.T) {
	dir, bin := buildBinary(t)

	t.Run("bare command opens the demo fleet", func(t *testing.T) {
		tm := startTerm(t, dir, bin)
		tm.waitFor("findings", has("✗", "disk-low", "healthy-sdn-l2bridge-docker", "judged"))
		tm.keys("q")
		tm.waitFor("a clean exit", has("EXITED 0"))
	})

	t.Run("filter, help, fix and verify", func(t *testing.T) {
		tm := startTerm(t, dir, bin+" demo --scenario kubelet-service-stopped --scenario routes-missing")
		tm.waitFor("both nodes judged", has("2/2 judged", "kubelet-service-stopped", "routes-missing"))
		tm.keys("/")
		tm.run("send-keys", "-t", "wts", "-l", "SVC-KUBELET")
		s := tm.waitFor("the filter", has("/SVC-KUBELET", "SVC-KUBELET"))
		if strings.Contains(s, "NODE-PODCIDR") {
			t.Errorf("filter left other findings:\n%s", s)
		}
		// After Escape, wait for the screen to take it: an ESC and the next key arriving
		// together read as Alt+key.
		tm.keys("Escape")
		tm.waitFor("the filter to clear", func(s string) bool { return !strings.Contains(s, "/SVC-KUBELET") })
		tm.keys("?")
		help := tm.waitFor("the help", func(s string) bool { return has("snapshot", "re-probe")(strings.ToLower(s)) })
		tm.keys("Escape")
		tm.waitFor("the help to close", func(s string) bool { return s != help })
		tm.keys("Tab", "g", "f") // SVC-KUBELET leads: it is the root cause of NODE-READY
		tm.waitFor("the fix preview", has("Start-Service -Name 'kubelet'", "Apply this fix?"))
		tm.keys("y")
		tm.waitFor("verification", has("fixed and verified: SVC-KUBELET"))
		tm.keys("Escape")
		tm.waitFor("the result to close", func(s string) bool { return !strings.Contains(s, "enter/esc close") })
		tm.keys("q")
		tm.waitFor("a clean exit", has("EXITED 0"))
	})
}
