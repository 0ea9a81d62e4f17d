package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// handshakeTimeout bounds the SSH handshake when ctx allows longer: a port that accepts
// but never speaks SSH should not eat a long run timeout.
const handshakeTimeout = 30 * time.Second

// credError is a configuration problem with the credentials, with what to do about it.
type credError struct{ msg, hint string }

func (e *credError) Error() string { return e.msg }

// credentials are what New found in the config; the agent is asked at each dial.
type credentials struct {
	password  string
	keyFile   string
	key       gossh.Signer
	agentSock string
}

func loadCredentials(cfg transport.Config) (credentials, error) {
	c := credentials{password: cfg.Password}
	if cfg.KeyFile != "" {
		c.keyFile = expandHome(cfg.KeyFile)
		pem, err := os.ReadFile(c.keyFile)
		if err != nil {
			return c, fmt.Errorf("reading key file: %w", err)
		}
		c.key, err = gossh.ParsePrivateKey(pem)
		var pm *gossh.PassphraseMissingError
		if errors.As(err, &pm) {
			return c, &credError{
				msg:  c.keyFile + " is passphrase-protected, and passphrases are not supported",
				hint: "load it into an agent instead: eval $(ssh-agent) && ssh-add " + c.keyFile + ", then use --ssh-agent",
			}
		} else if err != nil {
			return c, fmt.Errorf("parsing key file %s: %w", c.keyFile, err)
		}
	}
	if cfg.UseAgent {
		if c.agentSock = os.Getenv("SSH_AUTH_SOCK"); c.agentSock == "" {
			return c, &credError{
				msg:  "SSH_AUTH_SOCK is not set, so there is no ssh-agent to ask",
				hint: "start one and add your key: eval $(ssh-agent) && ssh-add ~/.ssh/id_ed25519",
			}
		}
	}
	if c.password == "" && c.key == nil && c.agentSock == "" {
		return c, &credError{msg: "no SSH credentials configured", hint: "give a password (WTS_PASSWORD, --password-file, --password-secret or --password-prompt), --ssh-key FILE or --ssh-agent"}
	}
	return c, nil
}

func credentialsHint(err error) string {
	if ce, ok := errors.AsType[*credError](err); ok {
		return ce.hint
	}
	return "check the --ssh-key path and that the file is an OpenSSH or PEM private key"
}

// describe names the credentials tried, for an authentication error (never the password).
func (c credentials) describe(agentNote string) string {
	var parts []string
	if c.key != nil {
		parts = append(parts, fmt.Sprintf("key %s (%s)", gossh.FingerprintSHA256(c.key.PublicKey()), c.keyFile))
	}
	if agentNote != "" {
		parts = append(parts, agentNote)
	}
	if c.password != "" {
		parts = append(parts, "the password")
	}
	return strings.Join(parts, ", ")
}

// authMethods lists the configured methods, keys before the password as OpenSSH does.
// An unusable agent is only fatal when nothing else is configured; otherwise it is
// reported (agentNote) if authentication then fails. done closes the agent connection,
// which is only needed during the handshake.
func (t *sshTransport) authMethods(ctx context.Context) (methods []gossh.AuthMethod, agentNote string, done func(), err error) {
	done = func() {}
	var signers []gossh.Signer
	if t.creds.key != nil {
		signers = append(signers, t.creds.key)
	}
	if t.creds.agentSock != "" {
		agentSigners, closeAgent, err := agentSigners(ctx, t.creds.agentSock)
		done = closeAgent
		switch {
		case err != nil:
			agentNote = err.Error()
		case len(agentSigners) == 0:
			agentNote = "ssh-agent holds no keys"
		default:
			agentNote = fmt.Sprintf("%d key(s) from ssh-agent", len(agentSigners))
		}
		signers = append(signers, agentSigners...)
	}
	// One publickey method: x/crypto tries each method name only once.
	if len(signers) > 0 {
		methods = append(methods, gossh.PublicKeys(signers...))
	}
	if pw := t.creds.password; pw != "" {
		methods = append(methods, gossh.Password(pw),
			gossh.KeyboardInteractive(func(_, _ string, questions []string, echos []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range questions {
					if !echos[i] { // a hidden prompt is the password prompt
						answers[i] = pw
					}
				}
				return answers, nil
			}))
	}
	if len(methods) == 0 {
		return nil, agentNote, done, errors.New(agentNote + ", and no other credentials are configured")
	}
	return methods, agentNote, done, nil
}

// agentSigners asks the ssh-agent at sock for its keys.
func agentSigners(ctx context.Context, sock string) ([]gossh.Signer, func(), error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, func() {}, fmt.Errorf("reaching ssh-agent at %s: %w", sock, err)
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		return nil, func() { _ = conn.Close() }, fmt.Errorf("listing ssh-agent keys: %w", err)
	}
	return signers, func() { _ = conn.Close() }, nil
}

// dial connects, verifies the host key and authenticates, all bounded by ctx.
func (t *sshTransport) dial(ctx context.Context, start time.Time) (*gossh.Client, error) {
	hk, err := newHostKeyCheck(t.cfg, t.addr)
	if err != nil {
		return nil, t.fail("verify host key", err, "fix or remove the known_hosts file, or pass --ssh-known-hosts FILE")
	}
	auth, agentNote, closeAgent, err := t.authMethods(ctx)
	defer closeAgent()
	if err != nil {
		return nil, t.fail("authenticate", err, "check the agent: ssh-add -l lists its keys, ssh-add KEYFILE adds one")
	}
	d := net.Dialer{KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, t.connectErr(ctx, err, start)
	}
	deadline := time.Now().Add(handshakeTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() }) // a cancel interrupts the handshake
	bc := &bannerConn{Conn: nc}
	hk.banner = bc // the host key is checked after the version exchange: hints can name the OS
	cc, chans, reqs, err := gossh.NewClientConn(bc, t.addr, &gossh.ClientConfig{
		User:              t.cfg.User,
		Auth:              auth,
		HostKeyCallback:   hk.check,
		HostKeyAlgorithms: hk.algorithms,
		ClientVersion:     "SSH-2.0-wintroubleshoot",
	})
	if !stop() && err == nil { // ctx ended just as the handshake finished
		_ = cc.Close()
		return nil, t.ctxErr(ctx, "connect", start)
	}
	if err != nil {
		_ = nc.Close()
		if first := bc.notSSH(); first != "" && hk.failed() == nil && ctx.Err() == nil {
			return nil, t.fail("connect", fmt.Errorf("the server answered %s, which is not an SSH version line: %w", first, err),
				notSSHHint(first, t.cfg.Port))
		}
		return nil, t.handshakeErr(ctx, err, hk, agentNote, start, hintsFor(bc.version()))
	}
	_ = nc.SetDeadline(time.Time{})
	return gossh.NewClient(cc, chans, reqs), nil
}

// connectErr explains a failed TCP connect.
func (t *sshTransport) connectErr(ctx context.Context, err error, start time.Time) error {
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return t.ctxErr(ctx, "connect", start)
	case errors.Is(err, syscall.ECONNREFUSED):
		return t.fail("connect", err, fmt.Sprintf(
			"is sshd running on the node? Get-Service sshd, and Start-Service sshd to start it; is port %d open in the firewall?", t.cfg.Port))
	case errors.As(err, &dnsErr):
		return t.fail("connect", fmt.Errorf("resolving %s: %w", t.cfg.Host, err), "check the host name: nslookup "+t.cfg.Host)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return t.fail("connect", err, "no route to the node: check the address and the network path")
	case errors.As(err, &ne) && ne.Timeout():
		return t.fail("connect", fmt.Errorf("no answer: %w", err), fmt.Sprintf(
			"check the address, that the node is up and that the firewall lets port %d through (Test-NetConnection %s -Port %d)",
			t.cfg.Port, t.cfg.Host, t.cfg.Port))
	}
	return t.fail("connect", err, "")
}

// handshakeErr explains a failed SSH handshake: host key, authentication or a drop.
func (t *sshTransport) handshakeErr(ctx context.Context, err error, hk *hostKeyCheck, agentNote string, start time.Time, hints osHints) error {
	var ne net.Error
	switch {
	case hk.failed() != nil:
		return hk.failed()
	case errors.Is(ctx.Err(), context.Canceled):
		return t.ctxErr(ctx, "connect", start)
	case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
		// TCP got through, so the network is fine: something past it stalled.
		cause := err
		if dl, ok := ctx.Deadline(); ctx.Err() != nil {
			cause = context.Cause(ctx)
		} else if ok && !time.Now().Before(dl) { // the socket deadline was ctx's: same verdict
			cause = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
		}
		return t.fail("connect", fmt.Errorf("SSH handshake did not finish within %v: %w", time.Since(start).Round(time.Millisecond), cause),
			fmt.Sprintf("port %d accepts connections but the handshake stalled: is it sshd's port and not WinRM's? "+
				"is sshd overloaded? a domain account's logon also waits on an unreachable domain controller", t.cfg.Port))
	case strings.Contains(err.Error(), "unable to authenticate"):
		return t.fail("authenticate", fmt.Errorf("user %s with %s was not accepted: %w", t.cfg.User, t.creds.describe(agentNote), err),
			`check --node-user (--linux-user) and the password / --ssh-key; a domain account is DOMAIN\user or user@domain; a key must be listed in `+
				hints.authorizedKeys)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return t.fail("connect", fmt.Errorf("the node closed the connection during the SSH handshake: %w", err),
			"sshd accepted and then dropped the connection: it may be at MaxStartups, or a firewall or DenyUsers/AllowUsers rule cut it; "+
				"see "+hints.log+" on the node")
	}
	return t.fail("connect", fmt.Errorf("SSH handshake: %w", err), "")
}

// expandHome turns a leading ~/ into the home directory, as a shell would.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

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
