package fakenode

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"golang.org/x/crypto/ssh"
)

// sshTestResponder answers the sweep bootstrap with framed results (each call's stdout is
// its parameters as JSON) and echoes anything else: stdin back on stdout.
type sshTestResponder struct{ calls atomic.Int64 }

func (r *sshTestResponder) Respond(ctx context.Context, commandLine string, stdin []byte) Reply {
	r.calls.Add(1)
	if commandLine == scripts.CommandLine() {
		calls, ok, err := scripts.ParseSweep(string(stdin))
		if err != nil {
			return Reply{Stderr: []byte(err.Error()), ExitCode: 1}
		}
		if ok {
			var res []scripts.Result
			for _, c := range calls {
				p, _ := json.Marshal(c.Params)
				res = append(res, scripts.Result{Name: c.Name, Stdout: p})
			}
			return Reply{Stdout: scripts.Frame(res)}
		}
	}
	return Reply{Stdout: stdin}
}

const sshTestUser, sshTestPassword = "Administrator", "S3cret-pa55!"

func startTestSSH(t testing.TB, r Responder, opts SSHOptions) *SSHServer {
	t.Helper()
	if opts.User == "" {
		opts.User, opts.Password = sshTestUser, sshTestPassword
	}
	s, err := StartSSH(t.Context(), r, opts)
	if err != nil {
		t.Fatalf("StartSSH: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func dialTestSSH(s *SSHServer, user string, auth ...ssh.AuthMethod) (*ssh.Client, error) {
	if len(auth) == 0 {
		auth = []ssh.AuthMethod{ssh.Password(sshTestPassword)}
	}
	return ssh.Dial("tcp", s.Addr(), &ssh.ClientConfig{
		User: user, Auth: auth, HostKeyCallback: ssh.FixedHostKey(s.HostKey()), Timeout: 5 * time.Second,
	})
}

func mustDialSSH(t testing.TB, s *SSHServer) *ssh.Client {
	t.Helper()
	c, err := dialTestSSH(s, sshTestUser)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// runSSH execs command, writes stdin and closes it, the way the tool's transport does.
func runSSH(c *ssh.Client, command string, stdin []byte) (stdout, stderr []byte, err error) {
	sess, err := c.NewSession()
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	var o, e bytes.Buffer
	sess.Stdout, sess.Stderr = &o, &e
	in, err := sess.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := sess.Start(command); err != nil {
		return nil, nil, err
	}
	go func() {
		_, _ = in.Write(stdin)
		_ = in.Close()
	}()
	err = sess.Wait()
	return o.Bytes(), e.Bytes(), err
}

func testSweep(t testing.TB) (string, []scripts.Call) {
	t.Helper()
	calls := []scripts.Call{
		{Name: "host.json"},
		{Name: "services.json", Params: map[string]any{"Name": `kube"let' $x ` + "`n ü"}},
	}
	script, err := scripts.Sweep(calls)
	if err != nil {
		t.Fatal(err)
	}
	return script, calls
}

func checkSweepReply(t testing.TB, out []byte, calls []scripts.Call) {
	t.Helper()
	res, noise, err := scripts.Split(out)
	if err != nil || len(noise) > 0 || len(res) != len(calls) {
		t.Fatalf("sweep reply: %d results, noise %q, err %v\n%s", len(res), noise, err, out)
	}
	for i, c := range calls {
		want, _ := json.Marshal(c.Params)
		if c.Params == nil {
			want = []byte("{}") // Sweep sends no parameters as an empty object
		}
		if res[i].Name != c.Name || !bytes.Equal(res[i].Stdout, want) {
			t.Errorf("result %d = %s %q, want %s %q", i, res[i].Name, res[i].Stdout, c.Name, want)
		}
	}
}

func TestSSHBootstrapBothShells(t *testing.T) {
	for _, shell := range []string{"cmd", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			s := startTestSSH(t, &sshTestResponder{}, SSHOptions{DefaultShell: shell})
			c := mustDialSSH(t, s)
			script, calls := testSweep(t)
			for _, line := range []string{
				scripts.CommandLine(),
				`"C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe" -NoProfile -Command -`,
			} {
				out, errOut, err := runSSH(c, line, []byte(script))
				if err != nil || len(errOut) > 0 {
					t.Fatalf("%.40s: err %v, stderr %q", line, err, errOut)
				}
				if line == scripts.CommandLine() {
					checkSweepReply(t, out, calls)
				} else if string(out) != script {
					t.Errorf("plain powershell line: stdout not the echoed stdin")
				}
			}
		})
	}
}

func TestSSHShellBuiltins(t *testing.T) {
	tests := []struct {
		shell, command, stdout, stderr string
		exit                           int
	}{
		{"cmd", "hostname", "WIN-FAKENODE\r\n", "", 0},
		{"cmd", "HOSTNAME.EXE", "WIN-FAKENODE\r\n", "", 0},
		{"cmd", "ver", winVersion, "", 0},
		{"cmd", "echo hello  world", "hello  world\r\n", "", 0},
		{"cmd", "echo", "ECHO is on.\r\n", "", 0},
		{"cmd", "Get-Service kubelet", "", "'Get-Service' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", 1},
		{"cmd", "pwsh -c 1", "", "'pwsh' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", 1},
		{"powershell", "hostname", "WIN-FAKENODE\r\n", "", 0},
		{"powershell", "echo 'a b' c", "a b\r\nc\r\n", "", 0},
		{"powershell", "ver", "", psNotRecognized("ver"), 1},
	}
	servers := map[string]*ssh.Client{}
	for _, shell := range []string{"cmd", "powershell"} {
		servers[shell] = mustDialSSH(t, startTestSSH(t, &sshTestResponder{}, SSHOptions{DefaultShell: shell}))
	}
	for _, tc := range tests {
		out, errOut, err := runSSH(servers[tc.shell], tc.command, []byte("ignored stdin"))
		exit := 0
		if ee, ok := err.(*ssh.ExitError); ok {
			exit = ee.ExitStatus()
		} else if err != nil {
			t.Fatalf("%s %q: %v", tc.shell, tc.command, err)
		}
		if string(out) != tc.stdout || string(errOut) != tc.stderr || exit != tc.exit {
			t.Errorf("%s %q = (%q, %q, %d), want (%q, %q, %d)", tc.shell, tc.command, out, errOut, exit, tc.stdout, tc.stderr, tc.exit)
		}
	}
}

func TestSSHCmdCommandLineLimit(t *testing.T) {
	r := &sshTestResponder{}
	c := mustDialSSH(t, startTestSSH(t, r, SSHOptions{}))
	fits := "echo " + strings.Repeat("x", cmdMaxCommandLine-len("echo "))
	if out, _, err := runSSH(c, fits, nil); err != nil || len(out) != cmdMaxCommandLine-3 {
		t.Fatalf("8191 characters: err %v, %d bytes out", err, len(out))
	}
	// The limit counts UTF-16 units, not bytes: 8191 'ü' (16382 bytes) still fit.
	if _, _, err := runSSH(c, "echo "+strings.Repeat("ü", cmdMaxCommandLine-5), nil); err != nil {
		t.Fatalf("8191 UTF-16 units: %v", err)
	}
	_, errOut, err := runSSH(c, "powershell.exe -EncodedCommand "+strings.Repeat("A", cmdMaxCommandLine), nil)
	if ee, ok := err.(*ssh.ExitError); !ok || ee.ExitStatus() != 1 || string(errOut) != "The command line is too long.\r\n" {
		t.Fatalf("over the limit: err %v, stderr %q", err, errOut)
	}
	if r.calls.Load() != 0 {
		t.Errorf("an over-long command reached the Responder")
	}
}

func TestSSHStdinByteExact(t *testing.T) {
	c := mustDialSSH(t, startTestSSH(t, &sshTestResponder{}, SSHOptions{}))
	in := []byte("'quotes' \"double\" $env:PATH `backtick` %PATH% ^& |\r\nline2\nünïcödé ☃ 𝄞\x00\xff end")
	big := bytes.Repeat(in, 40000) // ~3MB: past the 2MB channel window
	for _, stdin := range [][]byte{in, big, nil} {
		out, errOut, err := runSSH(c, scripts.CommandLine(), stdin)
		if err != nil || len(errOut) > 0 || !bytes.Equal(out, stdin) {
			t.Fatalf("%d bytes in: %d bytes back, stderr %q, err %v", len(stdin), len(out), errOut, err)
		}
	}
}
