package winrm_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// Basic over plain HTTP puts the password, base64 only, in the first request. It is
// refused before any request reaches the node unless the caller opts in, and an opted-in
// transport says what it risks.
func TestBasicOverPlainHTTPRefusedBeforeAnyRequest(t *testing.T) {
	s := startNode(t, fakenode.WinRMOptions{AllowUnencrypted: true, Basic: true})
	cfg := configFor(t, s, "basic")
	cfg.AllowBasicOverHTTP = false
	tr, err := winrm.New(cfg)
	if err == nil {
		_, err = tr.Run(t.Context(), transport.Command{CommandLine: "exit 0"})
		_ = tr.Close()
	}
	te := asError(t, err, "configure", "in clear")
	for _, want := range []string{s.Addr(), "--transport winrm-https", "5986", "--winrm-auth ntlm", "--winrm-allow-basic-over-http"} {
		if !strings.Contains(te.Error(), want) {
			t.Errorf("refusal lacks %q: %s", want, te.Error())
		}
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("%d requests reached the node before the refusal", n)
	}

	cfg.AllowBasicOverHTTP = true
	tr = newTransport(t, cfg)
	w := transport.WarningsOf(tr)
	if len(w) != 1 || !strings.Contains(w[0], "in clear") || !strings.Contains(w[0], s.Addr()) {
		t.Errorf("opted-in Basic over HTTP warns %q, want one warning naming the address and the risk", w)
	}
	if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "exit 0"}); err != nil {
		t.Errorf("opted-in Basic over HTTP: %v", err)
	}
}

// NTLM over plain HTTP never sends the password: it needs no opt-in and warns of nothing.
// Basic over HTTPS is encrypted: the same.
func TestNTLMOverHTTPAndBasicOverHTTPSNeedNoOptIn(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fakenode.WinRMOptions
		auth string
	}{
		{"ntlm over http", fakenode.WinRMOptions{AllowUnencrypted: true}, "ntlm"},
		{"basic over https", fakenode.WinRMOptions{TLS: true}, "basic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startNode(t, tc.opts)
			cfg := configFor(t, s, tc.auth)
			cfg.AllowBasicOverHTTP = false
			tr := newTransport(t, cfg)
			if w := transport.WarningsOf(tr); len(w) != 0 {
				t.Errorf("warnings %q, want none", w)
			}
			if _, err := tr.Run(t.Context(), transport.Command{CommandLine: "exit 0"}); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
}
