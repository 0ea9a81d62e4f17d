// Package ssh runs commands on a node over SSH: Windows OpenSSH, or a Linux worker's sshd
// (hints name the files of the system that answered, linux.go). One connection
// is dialled lazily and reused by every Run, each Run being one exec session; a broken
// connection is redialled on the next Run.
package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

const (
	// maxSessions stays below sshd's MaxSessions (10 by default): past it sshd refuses
	// new sessions on the connection instead of queueing them.
	maxSessions = 8
	// cancelGrace is how long a cancelled session may take to close before the whole
	// connection is cut (a peer that stopped answering never acknowledges the close).
	cancelGrace = 2 * time.Second
)

// sshTransport is a transport.Transport over one shared SSH connection.
type sshTransport struct {
	cfg     transport.Config
	addr    string // host:port, IPv6 bracketed
	creds   credentials
	slots   chan struct{} // session semaphore, see maxSessions
	dialing chan struct{} // one dial at a time; waiters still honour their ctx

	mu     sync.Mutex
	client *gossh.Client
	closed bool
}

// New checks cfg and returns a Transport; it does not connect until the first Run.
func New(cfg transport.Config) (transport.Transport, error) {
	if cfg.Kind == "" {
		cfg.Kind = transport.SSH
	}
	port := cfg.Port
	if port == 0 {
		port = cfg.Kind.DefaultPort()
	}
	cfg.Port = port
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(port))
	fail := func(op string, err error, hint string) error {
		return &transport.Error{Kind: cfg.Kind, Addr: addr, Op: op, Err: err, Hint: hint}
	}
	if cfg.Host == "" {
		return nil, fail("configure", errors.New("no host given"), "give the node's address")
	}
	if cfg.User == "" {
		return nil, fail("configure", errors.New("no user given"), "give --node-user (Windows OpenSSH needs an account name, e.g. Administrator) or --linux-user for a Linux node")
	}
	creds, err := loadCredentials(cfg)
	if err != nil {
		return nil, fail("authenticate", err, credentialsHint(err))
	}
	return &sshTransport{
		cfg: cfg, addr: addr, creds: creds,
		slots: make(chan struct{}, maxSessions), dialing: make(chan struct{}, 1),
	}, nil
}

// Endpoint is the kind and host:port this transport reaches.
func (t *sshTransport) Endpoint() (transport.Kind, string) { return t.cfg.Kind, t.addr }

func (t *sshTransport) fail(op string, err error, hint string) *transport.Error {
	return &transport.Error{Kind: t.cfg.Kind, Addr: t.addr, Op: op, Err: err, Hint: hint}
}

// Run execs cmd.CommandLine in its own session, writes cmd.Stdin and closes it, and
// returns the output and exit status. A non-zero exit status is not an error.
func (t *sshTransport) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	if t.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.Timeout)
		defer cancel()
	}
	start := time.Now()
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return transport.Output{}, t.ctxErr(ctx, "run", start)
	}
	// A reused connection may have died while idle (node rebooted, NAT timeout):
	// then one fresh dial is tried before giving up.
	for attempt := 0; ; attempt++ {
		c, fresh, err := t.conn(ctx, start)
		if err != nil {
			return transport.Output{}, err
		}
		sess, err := newSession(ctx, c)
		if err == nil {
			return t.exec(ctx, c, sess, cmd, start)
		}
		if ctx.Err() != nil {
			return transport.Output{}, t.ctxErr(ctx, "run", start)
		}
		var oce *gossh.OpenChannelError
		hints := hintsFor(string(c.ServerVersion()))
		if errors.As(err, &oce) { // sshd said no; the connection itself is fine
			return transport.Output{}, t.fail("run", fmt.Errorf("opening a session: %w", err),
				"sshd refused a new session: check MaxSessions in "+hints.sshdConfig)
		}
		t.forget(c)
		if fresh || attempt > 0 {
			return transport.Output{}, t.fail("run", fmt.Errorf("opening a session: %w", err), hints.dropHint())
		}
	}
}

// execResult is how a session ended: Wait's error, or Start's when it never started.
type execResult struct {
	err     error
	started bool
}

func (t *sshTransport) exec(ctx context.Context, c *gossh.Client, sess *gossh.Session, cmd transport.Command, start time.Time) (transport.Output, error) {
	// Locked: on a timeout the session may still be writing while we take what arrived.
	var stdout, stderr lockedBuffer
	sess.Stdout, sess.Stderr = &stdout, &stderr
	stdin, err := sess.StdinPipe()
	if err != nil {
		_ = sess.Close()
		return transport.Output{}, t.fail("run", fmt.Errorf("opening stdin: %w", err), "")
	}
	// Start and Wait both block on the peer, so they run aside and ctx can win.
	done := make(chan execResult, 1)
	go func() {
		if err := sess.Start(cmd.CommandLine); err != nil {
			done <- execResult{err: err}
			return
		}
		go func() {
			// Write errors are ignored: a command may exit without reading its stdin.
			_, _ = stdin.Write(cmd.Stdin)
			_ = stdin.Close()
		}()
		done <- execResult{err: sess.Wait(), started: true}
	}()
	var res execResult
	select {
	case res = <-done:
	case <-ctx.Done():
		_ = sess.Close()
		go t.reap(c, done)
		// What arrived is returned with the error: a sweep keeps the frames it has.
		return transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, t.ctxErr(ctx, "run", start)
	}
	_ = sess.Close()
	hints := hintsFor(string(c.ServerVersion()))
	// Wait has returned, so the output buffers are no longer written to.
	out := transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exitErr *gossh.ExitError
	var missing *gossh.ExitMissingError
	switch {
	case res.err == nil:
		return out, nil
	case !res.started:
		return transport.Output{}, t.fail("run", fmt.Errorf("starting the command: %w", res.err),
			"sshd would not run it: see "+hints.log+" on the node")
	case errors.As(res.err, &exitErr):
		out.ExitCode = exitErr.ExitStatus()
		return out, nil
	case errors.As(res.err, &missing):
		// Partial output is returned too: a sweep keeps the frames that did arrive.
		return out, t.fail("run", fmt.Errorf("connection dropped before the command finished (%d bytes of output arrived, no exit status): %w",
			len(out.Stdout), res.err), hints.dropHint())
	}
	return out, t.fail("run", fmt.Errorf("reading the command's output: %w", res.err), hints.dropHint())
}

// reap waits for a cancelled session to wind down; a peer that does not acknowledge the
// close in time gets its connection cut, so nothing is left hanging on it.
func (t *sshTransport) reap(c *gossh.Client, done <-chan execResult) {
	timer := time.NewTimer(cancelGrace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.forget(c)
	}
}

// newSession opens a session channel, giving up when ctx ends.
func newSession(ctx context.Context, c *gossh.Client) (*gossh.Session, error) {
	type result struct {
		s   *gossh.Session
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := c.NewSession()
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.s != nil {
				_ = r.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// conn returns the shared connection, dialling it if there is none; fresh says it was
// just dialled.
func (t *sshTransport) conn(ctx context.Context, start time.Time) (c *gossh.Client, fresh bool, err error) {
	if c, err := t.current(); c != nil || err != nil {
		return c, false, err
	}
	select {
	case t.dialing <- struct{}{}:
		defer func() { <-t.dialing }()
	case <-ctx.Done():
		return nil, false, t.ctxErr(ctx, "connect", start)
	}
	if c, err := t.current(); c != nil || err != nil { // another Run dialled meanwhile
		return c, false, err
	}
	c, err = t.dial(ctx, start)
	if err != nil {
		return nil, false, err
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		_ = c.Close()
		return nil, false, t.fail("connect", errors.New("transport closed"), "")
	}
	t.client = c
	t.mu.Unlock()
	go func() { // forget the connection as soon as it dies, so the next Run redials
		_ = c.Wait()
		t.forget(c)
	}()
	return c, true, nil
}

func (t *sshTransport) current() (*gossh.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, t.fail("connect", errors.New("transport closed"), "")
	}
	return t.client, nil
}

// forget closes c and drops it if it is still the shared connection.
func (t *sshTransport) forget(c *gossh.Client) {
	t.mu.Lock()
	if t.client == c {
		t.client = nil
	}
	t.mu.Unlock()
	_ = c.Close()
}

// Close closes the connection; Runs after Close fail.
func (t *sshTransport) Close() error {
	t.mu.Lock()
	c := t.client
	t.client, t.closed = nil, true
	t.mu.Unlock()
	if c != nil {
		if err := c.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return fmt.Errorf("closing SSH connection to %s: %w", t.addr, err)
		}
	}
	return nil
}

// ctxErr explains why ctx ended: a deadline (ours or the caller's) or a cancel.
func (t *sshTransport) ctxErr(ctx context.Context, op string, start time.Time) error {
	err := context.Cause(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hint := "the node answered too slowly: raise --timeout, or check the node's load: CPU, a stuck service or WMI"
		if op == "connect" {
			hint = fmt.Sprintf("no SSH answer from %s: check the address, that the node is up and that the firewall lets port %d through (Test-NetConnection %s -Port %d)",
				t.addr, t.cfg.Port, t.cfg.Host, t.cfg.Port)
		}
		return t.fail(op, fmt.Errorf("no answer within %v: %w", time.Since(start).Round(time.Millisecond), err), hint)
	}
	return t.fail(op, fmt.Errorf("cancelled after %v: %w", time.Since(start).Round(time.Millisecond), err), "")
}

// lockedBuffer is a bytes.Buffer safe to read while the session goroutines write to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
