package winrm_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
)

// rawHTTP answers every request on a loopback port with reply, byte for byte, then
// closes the connection: a web server, a proxy's error page, a kubelet.
func rawHTTP(t *testing.T, reply string) (host string, port int) {
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
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if _, err := io.WriteString(c, reply); err != nil || strings.Contains(reply, "Connection: close") || strings.HasPrefix(reply, "HTTP/1.0") {
						return
					}
				}
			}()
		}
	}()
	h, p, _ := net.SplitHostPort(ln.Addr().String())
	port, _ = strconv.Atoi(p)
	return h, port
}

// An HTTP server that is not WinRM is named as such, with the port to check; before,
// an HTML page closed after the answer read as "connection dropped mid-reply: run again"
// and a 500 page as the node refusing unencrypted WinRM.
func TestNotWinRMServerIsNamed(t *testing.T) {
	page := "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>"
	for _, tc := range []struct {
		name, reply, status string
	}{
		{"200 html, HTTP/1.0 close", "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + page, "HTTP 200"},
		{"200 html, keep-alive", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(page)) + "\r\n\r\n" + page, "HTTP 200"},
		{"404 html", "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n" + page, "HTTP 404"},
		{"500 html", "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(page)) + "\r\n\r\n" + page, "HTTP 500"},
		{"200 json", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", "HTTP 200"},
	} {
		for _, auth := range []string{"ntlm", "basic"} {
			t.Run(tc.name+" "+auth, func(t *testing.T) {
				host, port := rawHTTP(t, tc.reply)
				addr := net.JoinHostPort(host, strconv.Itoa(port))
				tr, err := winrm.New(transport.Config{Kind: transport.WinRM, Host: host, Port: port, User: testUser,
					Password: testPassword, Auth: auth, AllowBasicOverHTTP: true})
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				_, err = tr.Run(t.Context(), transport.Command{CommandLine: "exit 0"})
				te := asError(t, err, "connect", "the server at "+addr+" answered "+tc.status)
				for _, want := range []string{"is not a WinRM endpoint", "5985", "5986", "winrm enumerate winrm/config/listener"} {
					if !strings.Contains(te.Error(), want) {
						t.Errorf("error lacks %q: %s", want, te.Error())
					}
				}
				for _, wrong := range []string{"run again", "AllowUnencrypted", "dropped"} {
					if strings.Contains(te.Error(), wrong) {
						t.Errorf("error points the wrong way (%q): %s", wrong, te.Error())
					}
				}
				if strings.Contains(tc.reply, "<title>") && !strings.Contains(te.Error(), "Welcome to nginx!") {
					t.Errorf("error does not quote the page title: %s", te.Error())
				}
			})
		}
	}
}

// HTTP.sys answers 503 with its own HTML page when the service behind the URL (WinRM)
// is not running: that is WinRM's port, and the hint says to look at the service.
func TestHTTPSys503PointsAtTheWinRMService(t *testing.T) {
	page := `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN""http://www.w3.org/TR/html4/strict.dtd"><HTML><HEAD><TITLE>Service Unavailable</TITLE></HEAD><BODY><h2>Service Unavailable</h2></BODY></HTML>`
	host, port := rawHTTP(t, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html; charset=us-ascii\r\nServer: Microsoft-HTTPAPI/2.0\r\nContent-Length: "+strconv.Itoa(len(page))+"\r\n\r\n"+page)
	tr, err := winrm.New(transport.Config{Kind: transport.WinRM, Host: host, Port: port, User: testUser, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, err = tr.Run(t.Context(), transport.Command{CommandLine: "exit 0"})
	te := asError(t, err, "", "Get-Service WinRM")
	if strings.Contains(te.Error(), "not a WinRM endpoint") {
		t.Errorf("503 from HTTP.sys called not WinRM: %s", te.Error())
	}
}
