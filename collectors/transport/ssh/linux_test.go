package ssh

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/fakenode"
)

// startLinuxNode is a fake Linux worker's sshd (Debian's banner, sh as the shell).
func startLinuxNode(t *testing.T) *fakenode.SSHServer {
	t.Helper()
	n := fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fstest.MapFS{}, Node: "node-1"})
	s, err := fakenode.StartLinuxSSH(t.Context(), n, fakenode.SSHOptions{User: testUser, Password: testPassword, HostKeySeed: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestLinuxNodeHints: the hints of a Linux sshd name Linux's files and logs (its version
// line says which system answered), those of Windows OpenSSH Windows' ones.
func TestLinuxNodeHints(t *testing.T) {
	s := startLinuxNode(t)
	cfg := nodeConfig(t, s)
	cfg.KnownHosts = filepath.Join(t.TempDir(), "empty")
	writeKnownHosts(t, cfg.KnownHosts, "192.0.2.1:22")
	te := wantErr(t, runHostname(t, cfg), "verify host key", "unknown host")
	if !strings.Contains(te.Hint, "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub") || strings.Contains(te.Hint, `C:\`) {
		t.Errorf("Linux host key hint: %s", te.Hint)
	}
	cfg = nodeConfig(t, s)
	cfg.Password = "wrong"
	te = wantErr(t, runHostname(t, cfg), "authenticate", "was not accepted")
	if !strings.Contains(te.Hint, "/root/.ssh/authorized_keys") || strings.Contains(te.Hint, "ProgramData") {
		t.Errorf("Linux authentication hint: %s", te.Hint)
	}
	// The same node answers a Linux command; Windows' hint stays Windows'.
	out, err := newTransport(t, nodeConfig(t, s)).Run(t.Context(), transport.Command{CommandLine: "uname -n"})
	if err != nil || string(out.Stdout) != "node-1\n" {
		t.Errorf("uname -n: %q %v", out.Stdout, err)
	}
	win := startNode(t, fakenode.SSHOptions{HostKeySeed: "win"})
	cfg = nodeConfig(t, win)
	cfg.Password = "wrong"
	te = wantErr(t, runHostname(t, cfg), "authenticate")
	if !strings.Contains(te.Hint, `C:\ProgramData\ssh\administrators_authorized_keys`) {
		t.Errorf("Windows authentication hint: %s", te.Hint)
	}
}
