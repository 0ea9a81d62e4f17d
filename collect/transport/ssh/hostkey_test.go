package ssh

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	gossh "golang.org/x/crypto/ssh"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

func runHostname(t *testing.T, cfg transport.Config) error {
	t.Helper()
	tr, err := New(cfg)
	if err != nil {
		return err
	}
	defer tr.Close()
	_, err = tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	return err
}

func TestUnknownHostGivesKeyscanCommand(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{HostKeySeed: "unknown"})
	fp := gossh.FingerprintSHA256(s.HostKey())

	// Default known_hosts (~/.ssh/known_hosts, absent here): the hint is the exact
	// command to paste, and it really fixes the problem.
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := nodeConfig(t, s)
	cfg.KnownHosts = ""
	// ~/.ssh does not exist either: the command creates it (`>>` alone would fail).
	keyscan := fmt.Sprintf("mkdir -p -m 700 ~/.ssh && ssh-keyscan -p %d 127.0.0.1 >> ~/.ssh/known_hosts", cfg.Port)
	te := wantErr(t, runHostname(t, cfg), "verify host key", "unknown host", fp, "ssh-ed25519")
	if !strings.Contains(te.Hint, keyscan) || !strings.Contains(te.Hint, fp) {
		t.Errorf("hint lacks %q or the fingerprint: %s", keyscan, te.Hint)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeKnownHosts(t, filepath.Join(home, ".ssh", "known_hosts"), s.Addr(), s.HostKey())
	if err := runHostname(t, cfg); err != nil {
		t.Errorf("after adding the key to ~/.ssh/known_hosts: %v", err)
	}

	// An explicit known_hosts file that lacks the host names that file in the hint.
	other := startNode(t, fakenode.SSHOptions{HostKeySeed: "other"})
	cfg.KnownHosts = filepath.Join(t.TempDir(), "my hosts")
	writeKnownHosts(t, cfg.KnownHosts, other.Addr(), other.HostKey())
	te = wantErr(t, runHostname(t, cfg), "verify host key", "unknown host")
	if want := fmt.Sprintf("ssh-keyscan -p %d 127.0.0.1 >> '%s'", cfg.Port, cfg.KnownHosts); !strings.Contains(te.Hint, want) || strings.Contains(te.Hint, "mkdir") {
		t.Errorf("hint lacks %q (or makes a folder that exists): %s", want, te.Hint)
	}

	// An explicit known_hosts in a folder not made yet: the command makes the folder first.
	cfg.KnownHosts = filepath.Join(t.TempDir(), "new dir", "hosts")
	te = wantErr(t, runHostname(t, cfg), "verify host key", "unknown host")
	dir := filepath.Dir(cfg.KnownHosts)
	if want := fmt.Sprintf("mkdir -p -m 700 '%s' && ssh-keyscan -p %d 127.0.0.1 >> '%s'", dir, cfg.Port, cfg.KnownHosts); !strings.Contains(te.Hint, want) {
		t.Errorf("hint lacks %q: %s", want, te.Hint)
	}
}

func TestChangedHostKeyIsRefusedLoudly(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{HostKeySeed: "reinstalled"})
	cfg := nodeConfig(t, s)
	old := startNode(t, fakenode.SSHOptions{HostKeySeed: "before reinstall"}).HostKey()
	writeKnownHosts(t, cfg.KnownHosts, s.Addr(), old)
	te := wantErr(t, runHostname(t, cfg), "verify host key", "HOST KEY MISMATCH",
		gossh.FingerprintSHA256(s.HostKey()), gossh.FingerprintSHA256(old), cfg.KnownHosts+":1")
	if want := fmt.Sprintf("ssh-keygen -R '[127.0.0.1]:%d' -f ", cfg.Port); !strings.Contains(te.Hint, want) {
		t.Errorf("hint lacks %q: %s", want, te.Hint)
	}

	// The opt-out skips the check entirely.
	cfg.InsecureIgnoreHostKey = true
	if err := runHostname(t, cfg); err != nil {
		t.Errorf("InsecureIgnoreHostKey: %v", err)
	}
	cfg.KnownHosts = "/nonexistent/known_hosts"
	if err := runHostname(t, cfg); err != nil {
		t.Errorf("InsecureIgnoreHostKey without a known_hosts file: %v", err)
	}
}

func TestHostKeyTypePreference(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{HostKeySeed: "typed"})
	cfg := nodeConfig(t, s)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPub := mustSigner(t, ecKey).PublicKey()

	// known_hosts lists an ecdsa key before the node's ed25519 one: the ecdsa type is
	// asked for first, the node lacks it, and its ed25519 key still matches.
	writeKnownHosts(t, cfg.KnownHosts, s.Addr(), ecPub, s.HostKey())
	hk, err := newHostKeyCheck(cfg, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if len(hk.algorithms) < 2 || hk.algorithms[0] != gossh.KeyAlgoECDSA256 || hk.algorithms[1] != gossh.KeyAlgoED25519 {
		t.Errorf("algorithms %v: want ecdsa-sha2-nistp256, ssh-ed25519 first", hk.algorithms)
	}
	if err := runHostname(t, cfg); err != nil {
		t.Errorf("node key among several recorded types: %v", err)
	}
	// Only another type recorded: a mismatch, not a vague negotiation failure.
	writeKnownHosts(t, cfg.KnownHosts, s.Addr(), ecPub)
	wantErr(t, runHostname(t, cfg), "verify host key", "HOST KEY MISMATCH", "ecdsa-sha2-nistp256")

	// Port 22 entries use the bare host name, other ports [host]:port.
	for addr, want := range map[string]string{"node1:22": "node1", "node1:2222": "[node1]:2222", "[fe80::1]:22": "fe80::1"} {
		dir := t.TempDir()
		kh := filepath.Join(dir, "known_hosts")
		writeKnownHosts(t, kh, addr, s.HostKey())
		if b, _ := os.ReadFile(kh); !strings.HasPrefix(string(b), want+" ") {
			t.Errorf("known_hosts line for %s = %q, want it to start with %q", addr, b, want)
		}
		h, err := newHostKeyCheck(transport.Config{Kind: transport.SSH, KnownHosts: kh}, addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.check(addr, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1)}, s.HostKey()); err != nil {
			t.Errorf("%s: recorded key refused: %v", addr, err)
		}
	}
}

func TestBadKnownHostsFile(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{})
	cfg := nodeConfig(t, s)
	if err := os.WriteFile(cfg.KnownHosts, []byte("this is not a known_hosts line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantErr(t, runHostname(t, cfg), "verify host key", cfg.KnownHosts)
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"~/.ssh/known_hosts":     "~/.ssh/known_hosts",
		"/tmp/my hosts":          "'/tmp/my hosts'",
		"[127.0.0.1]:2222":       "'[127.0.0.1]:2222'",
		"~/it's here":            `~/'it'\''s here'`,
		"C:/Users/a/known_hosts": "C:/Users/a/known_hosts",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

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
