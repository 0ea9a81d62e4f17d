package winrm_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

const testUser, testPassword = "Administrator", "c0rrect-h0rse!"

// responder answers the sweep bootstrap with one framed result per call; otherwise
// "exit N" fails with N, "big N" prints N bytes, and anything else echoes stdin.
type responder struct{}

func (responder) Respond(ctx context.Context, line string, stdin []byte) fakenode.Reply {
	if line == scripts.CommandLine() {
		calls, ok, err := scripts.ParseSweep(string(stdin))
		if err != nil || !ok {
			return fakenode.Reply{Stderr: []byte("not a sweep"), ExitCode: 1}
		}
		var res []scripts.Result
		for _, c := range calls {
			res = append(res, scripts.Result{Name: c.Name, Stdout: []byte(`{"from":"` + c.Name + `"}`)})
		}
		return fakenode.Reply{Stdout: scripts.Frame(res)}
	}
	word, rest, _ := strings.Cut(line, " ")
	n, _ := strconv.Atoi(rest)
	switch word {
	case "exit":
		return fakenode.Reply{Stderr: []byte("exiting"), ExitCode: n}
	case "big":
		return fakenode.Reply{Stdout: bytes.Repeat([]byte("x"), n)}
	}
	return fakenode.Reply{Stdout: stdin}
}

func startNode(t testing.TB, opts fakenode.WinRMOptions) *fakenode.WinRMServer {
	t.Helper()
	opts.User, opts.Password = testUser, testPassword
	s, err := fakenode.StartWinRM(t.Context(), responder{}, opts)
	if err != nil {
		t.Fatalf("StartWinRM: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// configFor points a config at s: HTTPS trusting s's certificate when it has one.
func configFor(t testing.TB, s *fakenode.WinRMServer, auth string) transport.Config {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.Addr())
	p, _ := strconv.Atoi(port)
	cfg := transport.Config{Kind: transport.WinRM, Host: host, Port: p, User: testUser, Password: testPassword,
		Auth: auth, Timeout: 20 * time.Second,
		// These tests exercise Basic on the wire; the refusal without the opt-in has its own.
		AllowBasicOverHTTP: true}
	if pem := s.CertPEM(); pem != nil {
		cfg.Kind = transport.WinRMHTTPS
		cfg.CAFile = filepath.Join(t.TempDir(), "node.pem")
		if err := os.WriteFile(cfg.CAFile, pem, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func newTransport(t testing.TB, cfg transport.Config) transport.Transport {
	t.Helper()
	tr, err := winrm.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// sweepCommand is the real sweep of every snippet, as the engine sends it.
func sweepCommand(t testing.TB) (transport.Command, []string) {
	t.Helper()
	var calls []scripts.Call
	for _, name := range scripts.Snippets() {
		calls = append(calls, scripts.Call{Name: name, Params: map[string]any{"q": `it's "$x" ` + "`n"}})
	}
	script, err := scripts.Sweep(calls)
	if err != nil {
		t.Fatal(err)
	}
	return transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)}, scripts.Snippets()
}

// asError insists on a *transport.Error with op (any op for ""), whose text carries want
// and never the password.
func asError(t testing.TB, err error, op, want string) *transport.Error {
	t.Helper()
	var te *transport.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T), want a *transport.Error", err, err)
	}
	if (op != "" && te.Op != op) || !strings.Contains(te.Error(), want) {
		t.Errorf("error %q: want op %q and text containing %q", te.Error(), op, want)
	}
	if strings.Contains(te.Error(), testPassword) {
		t.Errorf("error text carries the password: %q", te.Error())
	}
	return te
}

func TestRunSweep(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         fakenode.WinRMOptions
		auth         string
		first, again int64 // HTTP requests per sweep
	}{
		{"http basic", fakenode.WinRMOptions{AllowUnencrypted: true}, "basic", 5, 5},
		{"http ntlm", fakenode.WinRMOptions{AllowUnencrypted: true}, "ntlm", 6, 5},
		{"https basic", fakenode.WinRMOptions{TLS: true}, "basic", 5, 5},
		{"https ntlm", fakenode.WinRMOptions{TLS: true}, "", 6, 5}, // "" is NTLM
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startNode(t, tc.opts)
			tr := newTransport(t, configFor(t, s, tc.auth))
			cmd, names := sweepCommand(t)
			for i, want := range []int64{tc.first, tc.again} {
				before := s.Requests()
				out, err := tr.Run(t.Context(), cmd)
				if err != nil {
					t.Fatalf("sweep %d: %v", i+1, err)
				}
				res, noise, err := scripts.Split(out.Stdout)
				if err != nil || len(noise) > 0 || len(res) != len(names) || out.ExitCode != 0 {
					t.Fatalf("sweep %d reply: %d results, noise %q, exit %d, err %v", i+1, len(res), noise, out.ExitCode, err)
				}
				seen := map[string]bool{}
				for j, r := range res {
					seen[r.Name] = true
					if string(r.Stdout) != `{"from":"`+r.Name+`"}` {
						t.Errorf("result %d: %s %q", j, r.Name, r.Stdout)
					}
				}
				for _, n := range names {
					if !seen[n] {
						t.Errorf("no frame for %s", n)
					}
				}
				if got := s.Requests() - before; got != want {
					t.Errorf("sweep %d took %d HTTP requests, want %d", i+1, got, want)
				}
			}
			if n := s.OpenShells(); n != 0 {
				t.Errorf("%d shells left open", n)
			}
		})
	}
}

func TestRunStdinByteExact(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{TLS: true})
	tr := newTransport(t, configFor(t, s, "ntlm"))
	quoting := []byte("it's \"quoted\" `backtick` $env:X $(Get-Date) %PATH% ^& | <>\r\nline 2\nline 3\t\x00 üñïçødé ✓ 𝄞 日本語\r\n")
	big := make([]byte, 300<<10+12345) // four Send chunks
	_, _ = rand.Read(big)
	for name, in := range map[string][]byte{"quoting": quoting, "binary": big} {
		out, err := tr.Run(t.Context(), transport.Command{CommandLine: "more", Stdin: in})
		if err != nil || !bytes.Equal(out.Stdout, in) {
			t.Errorf("%s: %d bytes back of %d, err %v", name, len(out.Stdout), len(in), err)
		}
	}
	before := s.Requests()
	out, err := tr.Run(t.Context(), transport.Command{CommandLine: "big 500000"})
	if err != nil || len(out.Stdout) != 500000 {
		t.Errorf("500 KB of output: %d bytes, err %v", len(out.Stdout), err)
	}
	// A 150 KB reply carries about 110 KB of output as base64: 5 Receives, plus create,
	// command and delete.
	if n := s.Requests() - before; n != 8 {
		t.Errorf("500 KB of output took %d requests, want 8", n)
	}
}

func TestRunExitCodeAndStderr(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{AllowUnencrypted: true})
	out, err := newTransport(t, configFor(t, s, "basic")).Run(t.Context(), transport.Command{CommandLine: "exit 7"})
	if err != nil || out.ExitCode != 7 || string(out.Stderr) != "exiting" || len(out.Stdout) != 0 {
		t.Fatalf("exit 7: %+v, %v", out, err)
	}
}

func TestRunAuthFailures(t *testing.T) {
	httpClosed := startNode(t, fakenode.WinRMOptions{})
	https := startNode(t, fakenode.WinRMOptions{TLS: true})
	ntlmOnly := startNode(t, fakenode.WinRMOptions{TLS: true, NTLM: true})
	for _, tc := range []struct {
		name     string
		s        *fakenode.WinRMServer
		auth     string
		password string
		op, want string
	}{
		{"wrong password basic", https, "basic", "wrong-" + testPassword + "-wrong", "authenticate", "check --user and the password source"},
		{"wrong password ntlm", https, "ntlm", "wrong-" + testPassword + "-wrong", "authenticate", "check --user and the password source"},
		{"basic on plain http", httpClosed, "basic", testPassword, "authenticate", "use --transport winrm-https"},
		{"ntlm on plain http", httpClosed, "ntlm", testPassword, "create shell", "AllowUnencrypted"},
		{"basic disabled", ntlmOnly, "basic", testPassword, "authenticate", "--winrm-auth ntlm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configFor(t, tc.s, tc.auth)
			cfg.Password = tc.password
			_, err := newTransport(t, cfg).Run(t.Context(), transport.Command{CommandLine: "more", Stdin: []byte("x")})
			te := asError(t, err, tc.op, tc.want)
			if strings.Contains(te.Error(), tc.password) {
				t.Errorf("error text carries the password: %q", te.Error())
			}
		})
	}
}

func TestRunTLSVerification(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{TLS: true})
	cfg := configFor(t, s, "ntlm")
	cfg.CAFile = "" // system roots do not know the node's self-signed certificate
	_, err := newTransport(t, cfg).Run(t.Context(), transport.Command{CommandLine: "exit 0"})
	asError(t, err, "verify TLS", "--winrm-ca-file")
	cfg.InsecureSkipTLSVerify = true
	if _, err := newTransport(t, cfg).Run(t.Context(), transport.Command{CommandLine: "exit 0"}); err != nil {
		t.Errorf("with --winrm-insecure-skip-tls-verify: %v", err)
	}
	if _, err := newTransport(t, configFor(t, s, "ntlm")).Run(t.Context(), transport.Command{CommandLine: "exit 0"}); err != nil {
		t.Errorf("with the node's certificate as CA file: %v", err)
	}
	// HTTPS against the HTTP listener.
	plain := startNode(t, fakenode.WinRMOptions{AllowUnencrypted: true})
	cfg = configFor(t, plain, "basic")
	cfg.Kind = transport.WinRMHTTPS
	_, err = newTransport(t, cfg).Run(t.Context(), transport.Command{CommandLine: "exit 0"})
	asError(t, err, "connect", "does not speak TLS")
}

func TestRunCommandLineTooLong(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{AllowUnencrypted: true})
	tr := newTransport(t, configFor(t, s, "basic"))
	_, err := tr.Run(t.Context(), transport.Command{CommandLine: "more " + strings.Repeat("x", 8187)})
	asError(t, err, "run", "cmd.exe accepts 8191")
	if n := s.Requests(); n != 0 {
		t.Errorf("%d requests sent for a command line that cannot run", n)
	}
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "more " + strings.Repeat("x", 8186)}); err != nil {
		t.Errorf("8191 characters: %v", err)
	}
}

func TestRunConnectionRefused(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{AllowUnencrypted: true})
	cfg := configFor(t, s, "basic")
	_ = s.Close()
	_, err := newTransport(t, cfg).Run(t.Context(), transport.Command{CommandLine: "exit 0"})
	asError(t, err, "connect", "winrm quickconfig")
}

func TestNewValidates(t *testing.T) {
	ok := transport.Config{Kind: transport.WinRMHTTPS, Host: "node", User: testUser, Password: testPassword}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	_ = os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for name, mutate := range map[string]func(*transport.Config){
		"ssh kind":      func(c *transport.Config) { c.Kind = transport.SSH },
		"kerberos":      func(c *transport.Config) { c.Auth = "kerberos" },
		"no host":       func(c *transport.Config) { c.Host = "" },
		"no user":       func(c *transport.Config) { c.User = "" },
		"missing CA":    func(c *transport.Config) { c.CAFile = filepath.Join(t.TempDir(), "absent.pem") },
		"CA is not PEM": func(c *transport.Config) { c.CAFile = notPEM },
	} {
		cfg := ok
		mutate(&cfg)
		if _, err := winrm.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			asError(t, err, "configure", "")
		}
	}
	if _, err := winrm.New(ok); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

// BenchmarkWinRMSweep runs one full sweep (every snippet, on stdin behind the bootstrap)
// per op over loopback and reports the HTTP requests it took: round trips, not bytes,
// dominate WinRM against a real node.
func BenchmarkWinRMSweep(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts fakenode.WinRMOptions
		auth string
	}{
		{"http-basic", fakenode.WinRMOptions{AllowUnencrypted: true}, "basic"},
		{"https-ntlm", fakenode.WinRMOptions{TLS: true}, "ntlm"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := startNode(b, bc.opts)
			tr := newTransport(b, configFor(b, s, bc.auth))
			cmd, _ := sweepCommand(b)
			b.SetBytes(int64(len(cmd.Stdin)))
			before := s.Requests()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tr.Run(b.Context(), cmd); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Requests()-before)/float64(b.N), "requests/op")
		})
	}
}
