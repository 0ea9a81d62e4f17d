package ssh

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

func TestSweepBothShellsReusesConnection(t *testing.T) {
	for _, shell := range []string{"cmd", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			s := startNode(t, fakenode.SSHOptions{DefaultShell: shell})
			tr := newTransport(t, nodeConfig(t, s))
			script, calls := testSweep(t, "host.json", "routes.json")
			var first *gossh.Client
			for i := range 3 {
				out, err := tr.Run(t.Context(), transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)})
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				checkSweep(t, out, calls)
				c, _ := tr.(*sshTransport).current()
				if first == nil {
					first = c
				} else if c != first {
					t.Errorf("run %d dialled a new connection", i)
				}
			}
		})
	}
}

func TestRunExitStatusIsNotAnError(t *testing.T) {
	tr := newTransport(t, nodeConfig(t, startNode(t, fakenode.SSHOptions{})))
	tests := []struct {
		cmd, stdout, stderr string
		exit                int
	}{
		{"hostname", "WIN-FAKENODE\r\n", "", 0},
		{"Get-Service sshd", "", "'Get-Service' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", 1},
		{"powershell.exe -EncodedCommand " + strings.Repeat("A", 8191), "", "The command line is too long.\r\n", 1},
	}
	for _, tc := range tests {
		out, err := tr.Run(t.Context(), transport.Command{CommandLine: tc.cmd, Stdin: []byte("unread stdin")})
		if err != nil {
			t.Fatalf("%.30s: %v", tc.cmd, err)
		}
		if string(out.Stdout) != tc.stdout || string(out.Stderr) != tc.stderr || out.ExitCode != tc.exit {
			t.Errorf("%.30s = (%q, %q, %d), want (%q, %q, %d)", tc.cmd, out.Stdout, out.Stderr, out.ExitCode, tc.stdout, tc.stderr, tc.exit)
		}
	}
}

func TestRunStdinByteExact(t *testing.T) {
	tr := newTransport(t, nodeConfig(t, startNode(t, fakenode.SSHOptions{})))
	in := []byte("'single' \"double\" $env:X `backtick` %PATH% ^&|<>\r\nCRLF\nLF\x00NUL \xff ünïcödé ☃ 𝄞")
	for _, stdin := range [][]byte{in, bytes.Repeat(in, 40000), nil} {
		out, err := tr.Run(t.Context(), transport.Command{CommandLine: scripts.CommandLine(), Stdin: stdin})
		if err != nil || !bytes.Equal(out.Stdout, stdin) {
			t.Fatalf("%d bytes in, %d back, err %v", len(stdin), len(out.Stdout), err)
		}
	}
}

func TestConcurrentRunsShareOneConnection(t *testing.T) {
	tr := newTransport(t, nodeConfig(t, startNode(t, fakenode.SSHOptions{})))
	script, calls := testSweep(t, "host.json")
	var wg sync.WaitGroup
	for range 3 * maxSessions {
		wg.Go(func() {
			out, err := tr.Run(t.Context(), transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)})
			if err != nil {
				t.Errorf("concurrent run: %v", err)
				return
			}
			checkSweep(t, out, calls)
		})
	}
	wg.Wait()
}

func TestAuthKeyFileAndAgent(t *testing.T) {
	signer, priv := newKey(t)
	_, otherPriv := newKey(t)
	s := startNode(t, fakenode.SSHOptions{User: testUser, AuthorizedKeys: []gossh.PublicKey{signer.PublicKey()}})
	base := nodeConfig(t, s)
	base.Password = ""
	run := func(cfg transport.Config) error {
		tr, err := New(cfg)
		if err != nil {
			return err
		}
		defer tr.Close()
		_, err = tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
		return err
	}

	cfg := base
	cfg.KeyFile = writeKey(t, priv)
	if err := run(cfg); err != nil {
		t.Errorf("key file: %v", err)
	}
	cfg.KeyFile = writeKey(t, otherPriv)
	wantErr(t, run(cfg), "authenticate", "was not accepted", "--ssh-key", gossh.FingerprintSHA256(mustSigner(t, otherPriv).PublicKey()))

	t.Run("agent", func(t *testing.T) {
		startAgent(t, otherPriv, priv) // the wrong key first: the agent's keys are all tried
		cfg := base
		cfg.UseAgent = true
		if err := run(cfg); err != nil {
			t.Errorf("agent: %v", err)
		}
		startAgent(t) // an empty agent and nothing else: a clear error
		wantErr(t, run(cfg), "authenticate", "ssh-agent holds no keys", "ssh-add")
		t.Setenv("SSH_AUTH_SOCK", "/nonexistent/agent.sock")
		wantErr(t, run(cfg), "authenticate", "reaching ssh-agent at /nonexistent/agent.sock")
		t.Setenv("SSH_AUTH_SOCK", "")
		wantErr(t, run(cfg), "authenticate", "SSH_AUTH_SOCK")
	})
	t.Run("agent down, key file works", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "/nonexistent/agent.sock")
		cfg := base
		cfg.UseAgent, cfg.KeyFile = true, writeKey(t, priv)
		if err := run(cfg); err != nil {
			t.Errorf("an unreachable agent stopped a working key file: %v", err)
		}
		cfg.KeyFile = writeKey(t, otherPriv)
		wantErr(t, run(cfg), "authenticate", "was not accepted", "reaching ssh-agent")
	})
}

func TestEncryptedKeyFile(t *testing.T) {
	// Made by ssh-keygen -N: encrypting one here runs bcrypt, seconds under -race.
	cfg := transport.Config{Host: "127.0.0.1", User: testUser, KeyFile: "testdata/encrypted_ed25519"}
	_, err := New(cfg)
	te := wantErr(t, err, "authenticate", "passphrase-protected")
	if want := "ssh-add " + cfg.KeyFile + ", then use --ssh-agent"; !strings.Contains(te.Hint, want) {
		t.Errorf("hint lacks %q: %s", want, te.Hint)
	}
}

func mustSigner(t testing.TB, priv any) gossh.Signer {
	t.Helper()
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuthFailures(t *testing.T) {
	s := startNode(t, fakenode.SSHOptions{})
	cfg := nodeConfig(t, s)
	cfg.Password = "wrong-" + testPassword[:4]
	tr := newTransport(t, cfg)
	_, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	wantErr(t, err, "authenticate", "user Administrator", "check --node-user (--linux-user) and the password")
	if strings.Contains(err.Error(), cfg.Password) {
		t.Errorf("the wrong password leaked: %v", err)
	}

	cfg = nodeConfig(t, s)
	cfg.Password = ""
	_, err = New(cfg)
	wantErr(t, err, "authenticate", "no SSH credentials", "--ssh-key")
	cfg.KeyFile = "/nonexistent/id_ed25519"
	_, err = New(cfg)
	wantErr(t, err, "authenticate", "/nonexistent/id_ed25519")
	cfg = nodeConfig(t, s)
	cfg.User = ""
	_, err = New(cfg)
	wantErr(t, err, "configure", "--node-user", "--linux-user")
}

func TestCloseThenRun(t *testing.T) {
	tr := newTransport(t, nodeConfig(t, startNode(t, fakenode.SSHOptions{})))
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
	wantErr(t, err, "connect", "transport closed")
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// BenchmarkSSHSweep runs the full evidence sweep over one reused connection.
func BenchmarkSSHSweep(b *testing.B) {
	tr := newTransport(b, nodeConfig(b, startNode(b, fakenode.SSHOptions{})))
	script, calls := testSweep(b, scripts.Snippets()...)
	cmd := transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)}
	b.SetBytes(int64(len(script)))
	for b.Loop() {
		out, err := tr.Run(b.Context(), cmd)
		if err != nil {
			b.Fatal(err)
		}
		if res, _, err := scripts.Split(out.Stdout); err != nil || len(res) != len(calls) {
			b.Fatalf("%d results, %v", len(res), err)
		}
	}
}
