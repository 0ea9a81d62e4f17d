package ssh

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"
)

// bannerConn keeps the first bytes the server sent, so a failed handshake can say what
// answered when it was not sshd: x/crypto skips lines before "SSH-" and then reports
// only EOF, which reads like sshd dropping the connection (MaxStartups).
type bannerConn struct {
	net.Conn
	mu    sync.Mutex
	first []byte
}

const bannerKeep = 256

func (c *bannerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if room := bannerKeep - len(c.first); room > 0 && n > 0 {
		c.first = append(c.first, p[:min(n, room)]...)
	}
	c.mu.Unlock()
	return n, err
}

// notSSH describes the server's first line when nothing it sent is an SSH version line,
// "" when it sent nothing or spoke SSH.
func (c *bannerConn) notSSH() string {
	c.mu.Lock()
	first := bytes.Clone(c.first)
	c.mu.Unlock()
	if len(bytes.TrimSpace(first)) == 0 {
		return ""
	}
	for line := range bytes.SplitSeq(first, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("SSH-")) {
			return ""
		}
	}
	line, _, _ := bytes.Cut(first, []byte("\n"))
	return fmt.Sprintf("%.80q", strings.TrimRight(string(line), "\r"))
}

// notSSHHint says what the port probably is, from the first line it sent.
func notSSHHint(first string, port int) string {
	what := "another service"
	if strings.Contains(first, "HTTP/1.") || strings.Contains(first, "HTTP/2") {
		what = "an HTTP server (WinRM listens on 5985/5986: use --transport winrm or winrm-https there)"
	}
	return fmt.Sprintf("port %d is %s, not sshd: sshd listens on 22 by default (on the node: Get-Service sshd; "+
		"the port is Port in C:\\ProgramData\\ssh\\sshd_config)", port, what)
}
