package kube_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// hungServer accepts connections and never answers. With tlsOK the TLS handshake
// completes and then nothing is read or written (an API server wedged behind a load
// balancer); without it the TCP connection is accepted and the handshake never starts.
func hungServer(t *testing.T, tlsOK bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var cert tls.Certificate
	if tlsOK {
		// httptest's self-signed certificate, borrowed: only the handshake is needed.
		s := httptest.NewUnstartedServer(nil)
		s.StartTLS()
		cert = s.TLS.Certificates[0]
		s.Close()
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if tlsOK {
					tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
					if tc.Handshake() != nil {
						return
					}
				}
				<-done
			}()
		}
	}()
	return "https://" + ln.Addr().String()
}

func hungKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
current-context: hung
contexts:
- name: hung
  context: {cluster: hung, user: hung}
clusters:
- name: hung
  cluster: {server: "` + server + `", insecure-skip-tls-verify: true}
users:
- name: hung
  user: {token: not-a-secret}
`
	path := t.TempDir() + "/kubeconfig"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server that accepts and never answers must not hang discovery: the request timeout
// ends it, and the error names the server, the bound and its source, and what to try.
func TestDiscoveryAgainstHungServerEndsWithinRequestTimeout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tlsOK bool
	}{{"tls accepted, no answer", true}, {"tcp accepted, no tls", false}} {
		t.Run(tc.name, func(t *testing.T) {
			server := hungServer(t, tc.tlsOK)
			f := flags(hungKubeconfig(t, server), "")
			timeout := "1s"
			f.Timeout = &timeout
			c, err := kube.New(f)
			if err != nil {
				t.Fatal(err)
			}
			// The test's own bound: without a request timeout the call would hang to here.
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			defer cancel()
			start := time.Now()
			_, err = c.Collect(ctx, evidence.NewTree())
			took := time.Since(start)
			if err == nil {
				t.Fatal("Collect against a hung server succeeded")
			}
			if took > 4*time.Second {
				t.Errorf("Collect took %v, want about the 1s request timeout", took)
			}
			msg := err.Error()
			t.Log(msg)
			for _, want := range []string{server, "1s (--request-timeout)", "raise the bound with --request-timeout", "cluster-info"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

func TestRequestTimeoutDefaultsWhenFlagUnsetOrZero(t *testing.T) {
	path := hungKubeconfig(t, "https://127.0.0.1:1")
	for _, v := range []*string{nil, new("0")} {
		f := flags(path, "")
		f.Timeout = v
		c, err := kube.New(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.RequestTimeout(); got != kube.DefaultRequestTimeout {
			t.Errorf("--request-timeout %v: RequestTimeout() = %v, want the default %v", v, got, kube.DefaultRequestTimeout)
		}
	}
	f := flags(path, "")
	two := "2m"
	f.Timeout = &two
	c, err := kube.New(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RequestTimeout(); got != 2*time.Minute {
		t.Errorf("--request-timeout 2m: RequestTimeout() = %v", got)
	}
}
