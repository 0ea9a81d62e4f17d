package ssh

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// rawServer writes reply to every connection, then closes it.
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(reply))
			_ = c.Close()
		}
	}()
	return ln.Addr().String()
}

// SSH to a port where something else answers names what answered, with the address and
// the transport, instead of the MaxStartups guess a plain EOF gets.
func TestNonSSHServerIsNamed(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler()) // net/http answers "SSH-2.0-..." with a 400
	t.Cleanup(web.Close)
	for _, tc := range []struct {
		name, addr string
		want       []string
	}{
		{"http server", web.Listener.Addr().String(), []string{`"HTTP/1.1 400 Bad Request"`, "an HTTP server", "5985/5986", "--transport winrm"}},
		{"garbage", rawServer(t, "\x00\x17\xffnot a protocol\r\n"), []string{"not an SSH version line", "another service"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, p, _ := net.SplitHostPort(tc.addr)
			port, _ := strconv.Atoi(p)
			tr := newTransport(t, transport.Config{Kind: transport.SSH, Host: host, Port: port, User: testUser,
				Password: testPassword, InsecureIgnoreHostKey: true})
			_, err := tr.Run(t.Context(), transport.Command{CommandLine: "hostname"})
			te := wantErr(t, err, "connect", append(tc.want, "ssh "+tc.addr, "not sshd", "listens on 22")...)
			t.Log(te)
			if strings.Contains(te.Error(), "MaxStartups") {
				t.Errorf("points at sshd's MaxStartups: %s", te.Error())
			}
		})
	}
}
