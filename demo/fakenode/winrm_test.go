package fakenode

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	mz "github.com/masterzen/winrm"
	"github.com/masterzen/winrm/soap"
	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

const winrmTestUser, winrmTestPassword = "Administrator", "Pa55-w0rd!x"

// winrmTestResponder answers the sweep bootstrap with one framed result per call, decodes
// pywinrm's `powershell -encodedcommand`, and otherwise: "echo X" prints X, "exit N"
// fails with N, "big N" prints N bytes, anything else echoes stdin on stdout.
type winrmTestResponder struct{}

func (winrmTestResponder) Respond(ctx context.Context, line string, stdin []byte) Reply {
	if line == scripts.CommandLine() {
		calls, ok, err := scripts.ParseSweep(string(stdin))
		if err != nil || !ok {
			return Reply{Stderr: []byte("not a sweep"), ExitCode: 1}
		}
		var res []scripts.Result
		for _, c := range calls {
			res = append(res, scripts.Result{Name: c.Name, Stdout: []byte("evidence of " + c.Name)})
		}
		return Reply{Stdout: scripts.Frame(res)}
	}
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "powershell":
		if enc, ok := strings.CutPrefix(rest, "-encodedcommand "); ok {
			script, err := scripts.DecodeCommand(enc)
			if err != nil {
				return Reply{Stderr: []byte(err.Error()), ExitCode: 1}
			}
			return Reply{Stdout: []byte("ps:" + script)}
		}
	case "echo":
		return Reply{Stdout: []byte(rest + "\r\n")}
	case "exit":
		n, _ := strconv.Atoi(rest)
		return Reply{Stderr: []byte("exiting"), ExitCode: n}
	case "big":
		n, _ := strconv.Atoi(rest)
		return Reply{Stdout: bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]}
	}
	return Reply{Stdout: stdin}
}

func startTestWinRM(t testing.TB, opts WinRMOptions) *WinRMServer {
	t.Helper()
	if opts.User == "" {
		opts.User, opts.Password = winrmTestUser, winrmTestPassword
	}
	s, err := StartWinRM(t.Context(), winrmTestResponder{}, opts)
	if err != nil {
		t.Fatalf("StartWinRM: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// masterzenClient is github.com/masterzen/winrm pointed at s: an independent client.
func masterzenClient(t testing.TB, s *WinRMServer, ntlm bool, password string) *mz.Client {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.Addr())
	p, _ := strconv.Atoi(port)
	params := mz.NewParameters("PT60S", "en-US", 153600)
	if ntlm {
		params.TransportDecorator = func() mz.Transporter { return &mz.ClientNTLM{} }
	}
	ep := mz.NewEndpoint(host, p, s.CertPEM() != nil, false, s.CertPEM(), nil, nil, 10*time.Second)
	c, err := mz.NewClientWithParameters(ep, winrmTestUser, password, params)
	if err != nil {
		t.Fatalf("masterzen client: %v", err)
	}
	return c
}

func TestWinRMMasterzenClients(t *testing.T) {
	sweep, err := scripts.Sweep([]scripts.Call{{Name: "host.json"}, {Name: "services.json", Params: map[string]any{"names": []string{"kubelet"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts WinRMOptions
		ntlm bool
	}{
		{"http basic", WinRMOptions{AllowUnencrypted: true}, false},
		{"http ntlm", WinRMOptions{AllowUnencrypted: true}, true},
		{"https basic", WinRMOptions{TLS: true}, false},
		{"https ntlm", WinRMOptions{TLS: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startTestWinRM(t, tc.opts)
			c := masterzenClient(t, s, tc.ntlm, winrmTestPassword)
			var stdout, stderr bytes.Buffer
			code, err := c.RunWithInput(scripts.CommandLine(), &stdout, &stderr, strings.NewReader(sweep))
			if err != nil || code != 0 {
				t.Fatalf("sweep: code %d, err %v, stderr %q", code, err, stderr.String())
			}
			res, noise, err := scripts.Split(stdout.Bytes())
			if err != nil || len(noise) != 0 || len(res) != 2 || res[1].Name != "services.json" || string(res[0].Stdout) != "evidence of host.json" {
				t.Fatalf("sweep reply %q: results %+v noise %q err %v", stdout.String(), res, noise, err)
			}
			stdout.Reset()
			stderr.Reset()
			if code, err = c.Run("exit 3", &stdout, &stderr); err != nil || code != 3 || stderr.String() != "exiting" {
				t.Errorf("exit 3: code %d err %v stderr %q", code, err, stderr.String())
			}
			if n := s.OpenShells(); n != 0 {
				t.Errorf("%d shells left open after masterzen closed them", n)
			}
		})
	}
}

func TestWinRMAuthRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     WinRMOptions
		ntlm     bool
		password string
		want     string
	}{
		{"wrong password basic", WinRMOptions{TLS: true}, false, "wrong", "401"},
		{"wrong password ntlm", WinRMOptions{TLS: true}, true, "wrong", "401"},
		// Plain HTTP without AllowUnencrypted: Basic is not even offered; NTLM logs on,
		// then the unsealed message is refused with an empty 500.
		{"unencrypted basic", WinRMOptions{}, false, winrmTestPassword, "401"},
		{"unencrypted ntlm", WinRMOptions{}, true, winrmTestPassword, "500"},
		{"basic off", WinRMOptions{TLS: true, NTLM: true}, false, winrmTestPassword, "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startTestWinRM(t, tc.opts)
			_, err := masterzenClient(t, s, tc.ntlm, tc.password).CreateShell()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CreateShell: %v, want an HTTP %s", err, tc.want)
			}
		})
	}
	s := startTestWinRM(t, WinRMOptions{})
	resp, err := http.Post(s.URL(), "application/soap+xml", strings.NewReader("<x/>"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	got := resp.Header.Values("WWW-Authenticate")
	if resp.StatusCode != 401 || strings.Contains(strings.Join(got, ","), "Basic") || len(got) != 2 {
		t.Errorf("plain HTTP without AllowUnencrypted: %d offering %q, want 401 offering Negotiate and NTLM only", resp.StatusCode, got)
	}
}

// winrmRaw posts hand-picked SOAP messages with Basic auth, to look at raw answers.
type winrmRaw struct {
	t  testing.TB
	s  *WinRMServer
	hc *http.Client
}

func newWinRMRaw(t testing.TB, s *WinRMServer) *winrmRaw {
	tr := &http.Transport{}
	if pem := s.CertPEM(); pem != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &winrmRaw{t: t, s: s, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (c *winrmRaw) post(body string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodPost, c.s.URL(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/soap+xml;charset=UTF-8")
	req.SetBasicAuth(winrmTestUser, winrmTestPassword)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func (c *winrmRaw) do(msg *soap.SoapMessage) (int, string) {
	c.t.Helper()
	body := msg.String()
	msg.Free()
	status, reply, err := c.post(body)
	if err != nil {
		c.t.Fatalf("POST: %v", err)
	}
	return status, reply
}

var winrmRawParams = mz.NewParameters("PT60S", "en-US", 153600)

// shell creates a shell and starts line in it, returning their ids.
func (c *winrmRaw) shell(line string) (shellID, commandID string) {
	c.t.Helper()
	status, reply := c.do(mz.NewOpenShellRequest(c.s.URL(), winrmRawParams))
	shellID, _ = mz.ParseOpenShellResponse(reply)
	if status != 200 || shellID == "" {
		c.t.Fatalf("Create: %d %s", status, reply)
	}
	status, reply = c.do(mz.NewExecuteCommandRequest(c.s.URL(), shellID, line, nil, winrmRawParams))
	commandID, _ = mz.ParseExecuteCommandResponse(reply)
	if status != 200 || commandID == "" {
		c.t.Fatalf("Command: %d %s", status, reply)
	}
	return shellID, commandID
}

// winrmTestFault is a fault as clients read it: pywinrm and masterzen key on these fields.
type winrmTestFault struct {
	Code    string `xml:"Body>Fault>Code>Value"`
	Subcode string `xml:"Body>Fault>Code>Subcode>Value"`
	Reason  string `xml:"Body>Fault>Reason>Text"`
	Detail  struct {
		WSMan   string `xml:"Code,attr"`
		Message string `xml:"Message"`
	} `xml:"Body>Fault>Detail>WSManFault"`
}

// fault posts msg and expects the HTTP 500 with a WS-Man fault that Windows sends.
func (c *winrmRaw) fault(msg *soap.SoapMessage) winrmTestFault {
	c.t.Helper()
	status, reply := c.do(msg)
	var f winrmTestFault
	if err := xml.Unmarshal([]byte(reply), &f); err != nil || status != 500 || f.Detail.WSMan == "" {
		c.t.Fatalf("want an HTTP 500 WS-Man fault, got %d %s (%v)", status, reply, err)
	}
	return f
}

func TestWinRMSmallOutputInOneReceive(t *testing.T) {
	s := startTestWinRM(t, WinRMOptions{AllowUnencrypted: true})
	c := newWinRMRaw(t, s)
	shellID, cmdID := c.shell("echo hello")
	before := s.Requests()
	status, reply := c.do(mz.NewGetOutputRequest(s.URL(), shellID, cmdID, "stdout stderr", winrmRawParams))
	var stdout, stderr bytes.Buffer
	done, code, err := mz.ParseSlurpOutputErrResponse(reply, &stdout, &stderr)
	if status != 200 || err != nil || !done || code != 0 || stdout.String() != "hello\r\n" || s.Requests()-before != 1 {
		t.Fatalf("Receive: %d done=%v code=%d stdout=%q err=%v: %s", status, done, code, stdout.String(), err, reply)
	}
	if status, reply = c.do(mz.NewDeleteShellRequest(s.URL(), shellID, winrmRawParams)); status != 200 || !strings.Contains(reply, "DeleteResponse") {
		t.Fatalf("Delete: %d %s", status, reply)
	}
	// The shell is gone: the exact fault Windows sends for an unknown ShellId.
	f := c.fault(mz.NewDeleteShellRequest(s.URL(), shellID, winrmRawParams))
	if f.Detail.WSMan != "2150858843" || f.Subcode != "w:InvalidSelectors" ||
		!strings.Contains(f.Detail.Message, "The request for the Windows Remote Shell with ShellId "+shellID+" failed because the shell was not found") {
		t.Errorf("unknown shell fault: %+v", f)
	}
}

func TestWinRMLargeOutputIsChunked(t *testing.T) {
	s := startTestWinRM(t, WinRMOptions{AllowUnencrypted: true})
	var stdout, stderr bytes.Buffer
	before := s.Requests()
	code, err := masterzenClient(t, s, false, winrmTestPassword).Run("big 1000000", &stdout, &stderr)
	if err != nil || code != 0 || stdout.Len() != 1000000 || !bytes.HasPrefix(stdout.Bytes(), []byte("0123456789abcdef0123")) {
		t.Fatalf("big output: code %d err %v, %d bytes", code, err, stdout.Len())
	}
	// 1 MB in replies capped at 150 KB: at least 7 Receives, plus create, command, signal, delete.
	if n := s.Requests() - before; n < 11 {
		t.Errorf("%d requests for 1 MB of output; want it chunked over several Receives", n)
	}
}

func TestWinRMStdinByteExact(t *testing.T) {
	s := startTestWinRM(t, WinRMOptions{AllowUnencrypted: true})
	in := "quotes ' \" `backtick` $env:PATH $(calc) %PATH% & | < > ^\r\nnew\nline\tüñïçødé ✓ 𝄞\x00end"
	var stdout, stderr bytes.Buffer
	code, err := masterzenClient(t, s, false, winrmTestPassword).RunWithInput("more", &stdout, &stderr, strings.NewReader(in))
	if err != nil || code != 0 || stdout.String() != in {
		t.Fatalf("echo stdin: code %d err %v\n got %q\nwant %q", code, err, stdout.String(), in)
	}
}
