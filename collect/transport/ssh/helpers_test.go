package ssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

const testUser, testPassword = "Administrator", "Pa55-w0rd!-not-in-errors"

// testResponder answers the sweep bootstrap with framed results (each call's stdout is
// its parameters as JSON) and echoes stdin for any other command.
type testResponder struct{ calls atomic.Int64 }

func (r *testResponder) Respond(ctx context.Context, commandLine string, stdin []byte) fakenode.Reply {
	r.calls.Add(1)
	if commandLine == scripts.CommandLine() {
		calls, ok, err := scripts.ParseSweep(string(stdin))
		if err != nil {
			return fakenode.Reply{Stderr: []byte(err.Error()), ExitCode: 1}
		}
		if ok {
			var res []scripts.Result
			for _, c := range calls {
				p, _ := json.Marshal(c.Params)
				res = append(res, scripts.Result{Name: c.Name, Stdout: p})
			}
			return fakenode.Reply{Stdout: scripts.Frame(res)}
		}
	}
	return fakenode.Reply{Stdout: stdin}
}

// startNode starts a fake node with password auth; opts fields left zero get defaults.
func startNode(t testing.TB, opts fakenode.SSHOptions) *fakenode.SSHServer {
	t.Helper()
	if opts.User == "" {
		opts.User, opts.Password = testUser, testPassword
	}
	s, err := fakenode.StartSSH(t.Context(), &testResponder{}, opts)
	if err != nil {
		t.Fatalf("starting fake node: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// nodeConfig is a password config for s whose known_hosts (in a temp dir) lists s's key.
func nodeConfig(t testing.TB, s *fakenode.SSHServer) transport.Config {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.Addr())
	p, _ := strconv.Atoi(port)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	writeKnownHosts(t, kh, s.Addr(), s.HostKey())
	return transport.Config{Kind: transport.SSH, Host: host, Port: p, User: testUser, Password: testPassword, KnownHosts: kh}
}

func writeKnownHosts(t testing.TB, file, addr string, keys ...gossh.PublicKey) {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(knownhosts.Line([]string{knownhosts.Normalize(addr)}, k) + "\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newTransport(t testing.TB, cfg transport.Config) transport.Transport {
	t.Helper()
	tr, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

func newKey(t testing.TB) (gossh.Signer, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, priv
}

// writeKey writes priv as an OpenSSH private key file.
func writeKey(t testing.TB, priv ed25519.PrivateKey) string {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(priv, "test key")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// startAgent serves an in-process ssh-agent holding keys on a fresh unix socket and
// points SSH_AUTH_SOCK at it.
func startAgent(t *testing.T, keys ...ed25519.PrivateKey) {
	t.Helper()
	dir, err := os.MkdirTemp("", "wts-agent") // short: unix socket paths are limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	keyring := agent.NewKeyring()
	for _, k := range keys {
		if err := keyring.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = agent.ServeAgent(keyring, c)
			}()
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
}

// wantErr checks err is a *transport.Error for op whose text holds every want, and that
// the password never leaks into it.
func wantErr(t testing.TB, err error, op string, want ...string) *transport.Error {
	t.Helper()
	var te *transport.Error
	if !errors.As(err, &te) {
		t.Fatalf("want *transport.Error (%s), got %T: %v", op, err, err)
	}
	if te.Op != op || te.Kind != transport.SSH {
		t.Errorf("Op %q Kind %q, want %q ssh: %v", te.Op, te.Kind, op, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), testPassword) {
		t.Errorf("the password leaked into the error: %v", err)
	}
	return te
}

func testSweep(t testing.TB, names ...string) (string, []scripts.Call) {
	t.Helper()
	calls := []scripts.Call{{Name: "services.json", Params: map[string]any{"Name": `it's "q" $x ` + "`t\n ü ☃"}}}
	for _, n := range names {
		calls = append(calls, scripts.Call{Name: n, Params: map[string]any{"n": n}})
	}
	script, err := scripts.Sweep(calls)
	if err != nil {
		t.Fatal(err)
	}
	return script, calls
}

func checkSweep(t testing.TB, out transport.Output, calls []scripts.Call) {
	t.Helper()
	res, noise, err := scripts.Split(out.Stdout)
	if err != nil || len(noise) > 0 || len(res) != len(calls) || out.ExitCode != 0 || len(out.Stderr) > 0 {
		t.Fatalf("sweep: %d results, noise %q, err %v, exit %d, stderr %q", len(res), noise, err, out.ExitCode, out.Stderr)
	}
	for i, c := range calls {
		if want, _ := json.Marshal(c.Params); res[i].Name != c.Name || string(res[i].Stdout) != string(want) {
			t.Errorf("result %d = %s %q, want %s %q", i, res[i].Name, res[i].Stdout, c.Name, want)
		}
	}
}
