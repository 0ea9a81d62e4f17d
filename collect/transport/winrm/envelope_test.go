package winrm

import (
	"bytes"
	"encoding/base64"
	"net"
	"regexp"
	"testing"

	mz "github.com/masterzen/winrm"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// TestEnvelopesAreMasterzens: every hand-rendered request is masterzen's New...Request
// byte for byte, but for the random MessageID (and the Command's stdin mode, see
// commandRequest).
func TestEnvelopesAreMasterzens(t *testing.T) {
	tr, err := New(transport.Config{Kind: transport.WinRM, Host: "10.0.0.5", User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	w := tr.(*winrmTransport)
	chunk := []byte("powershell <&> \x00\xff sweep")
	b64 := base64.StdEncoding.AppendEncode(nil, chunk)
	line := `powershell -c "a & b <c> ]]> d"`
	cases := map[string]struct{ got, want string }{
		"create":  {string(w.createRequest()), mz.NewOpenShellRequest(w.url, w.params).String()},
		"receive": {string(w.receiveRequest("SHELL-1", "CMD-1")), mz.NewGetOutputRequest(w.url, "SHELL-1", "CMD-1", "stdout stderr", w.params).String()},
		"signal":  {string(w.signalRequest("SHELL-1", "CMD-1")), mz.NewSignalRequest(w.url, "SHELL-1", "CMD-1", w.params).String()},
		"delete":  {string(w.deleteRequest("SHELL-1")), mz.NewDeleteShellRequest(w.url, "SHELL-1", w.params).String()},
		"send":    {joined(w.sendRequest("SHELL-1", "CMD-1", b64, false)), mz.NewSendInputRequest(w.url, "SHELL-1", "CMD-1", chunk, false, w.params).String()},
		"send end": {joined(w.sendRequest("SHELL-1", "CMD-1", b64, true)),
			mz.NewSendInputRequest(w.url, "SHELL-1", "CMD-1", chunk, true, w.params).String()},
		// console mode when no stdin is sent: masterzen's own choice
		"command": {string(w.commandRequest("SHELL-1", line, false)),
			mz.NewExecuteCommandRequest(w.url, "SHELL-1", `powershell -c "a & b <c> ]]]]><![CDATA[> d"`, nil, w.params).String()},
	}
	id := regexp.MustCompile(`uuid:[0-9a-f-]{36}`)
	for name, c := range cases {
		if id.ReplaceAllString(c.got, "ID") != id.ReplaceAllString(c.want, "ID") {
			t.Errorf("%s:\n got %s\nwant %s", name, c.got, c.want)
		}
		if !id.MatchString(c.got) {
			t.Errorf("%s: no MessageID UUID in %s", name, c.got)
		}
	}
	if a, b := id.FindString(string(w.createRequest())), id.FindString(string(w.createRequest())); a == b {
		t.Errorf("two requests share the MessageID %s", a)
	}
}

func BenchmarkSendRequest(b *testing.B) {
	tr, err := New(transport.Config{Kind: transport.WinRM, Host: "10.0.0.5", User: "u"})
	if err != nil {
		b.Fatal(err)
	}
	w := tr.(*winrmTransport)
	chunk := base64.StdEncoding.AppendEncode(nil, make([]byte, 22<<10))
	b.ReportAllocs()
	for range b.N {
		_ = w.sendRequest("SHELL-1", "CMD-1", chunk, true)
	}
}

func joined(parts net.Buffers) string { return string(bytes.Join(parts, nil)) }
