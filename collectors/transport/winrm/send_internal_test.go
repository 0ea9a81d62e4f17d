package winrm

import (
	"regexp"
	"testing"

	mz "github.com/masterzen/winrm"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

// TestSendRequestIsMasterzens: the hand-rendered Send is masterzen's NewSendInputRequest
// byte for byte, but for the random MessageID.
func TestSendRequestIsMasterzens(t *testing.T) {
	tr, err := New(transport.Config{Kind: transport.WinRM, Host: "10.0.0.5", User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	w := tr.(*winrmTransport)
	id := regexp.MustCompile(`uuid:[0-9a-f-]{36}`)
	for _, eof := range []bool{false, true} {
		chunk := []byte("powershell <&> \x00\xff sweep")
		want := mz.NewSendInputRequest(w.url, "SHELL-1", "CMD-1", chunk, eof, w.params).String()
		got := string(w.sendRequest("SHELL-1", "CMD-1", chunk, eof))
		if id.ReplaceAllString(got, "ID") != id.ReplaceAllString(want, "ID") {
			t.Fatalf("eof %v:\n got %s\nwant %s", eof, got, want)
		}
	}
}
