package winrm

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Azure/go-ntlmssp"
)

const (
	authNTLM  = "ntlm"
	authBasic = "basic"

	// exchangeTimeout backstops one request when the caller set no deadline: a Receive
	// waits at most operationTimeout on the node, so silence past this is a dead node.
	exchangeTimeout = 90 * time.Second
	maxIdleConns    = 2
	maxIdleAge      = 60 * time.Second // Windows (HTTP.sys) drops idle connections after 120 s
	maxReplyBytes   = 16 << 20
)

var (
	errNoReply = errors.New("the node closed the connection without answering")
	errDropped = errors.New("the connection dropped in the middle of the node's reply")
)

// httpClient posts SOAP envelopes over HTTP/1.1 connections it owns. net/http would pick
// any pooled connection for a request, but NTLM authenticates a connection: the challenge
// and the answer must travel on the same one, and only that one is logged on afterwards.
// So each connection carries its own logon state, and a handshake never interleaves.
type httpClient struct {
	addr     string      // host:port to dial, also the Host header
	tls      *tls.Config // nil for plain HTTP
	auth     string      // authNTLM or authBasic
	user     string      // without the DOMAIN\ prefix, for NTLM
	domain   string
	password string
	basic    string // the Basic Authorization header

	mu     sync.Mutex
	idle   []*httpConn
	closed bool
}

type httpConn struct {
	nc        net.Conn
	br        *bufio.Reader
	head      []byte // the request head, reused
	authed    bool   // NTLM logon done on this connection
	idleSince time.Time
}

type httpResponse struct {
	status    int
	header    http.Header
	body      []byte
	keepAlive bool
}

// post sends one envelope, authenticating the connection first when NTLM needs it.
func (c *httpClient) post(ctx context.Context, body net.Buffers) (*httpResponse, error) {
	cn, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := c.postOn(ctx, cn, body)
	if err != nil {
		_ = cn.nc.Close()
		return nil, err
	}
	c.release(cn, resp.keepAlive)
	return resp, nil
}

func (c *httpClient) postOn(ctx context.Context, cn *httpConn, body net.Buffers) (*httpResponse, error) {
	if c.auth == authBasic {
		return cn.exchange(ctx, c.addr, c.basic, body)
	}
	if cn.authed {
		resp, err := cn.exchange(ctx, c.addr, "", body)
		if err != nil || resp.status != http.StatusUnauthorized || !resp.keepAlive {
			return resp, err
		}
		cn.authed = false // the node forgot this connection's logon: log on again
	}
	return c.ntlmLogon(ctx, cn, body)
}

// ntlmLogon runs the NTLM handshake on cn and sends body with the final leg: NEGOTIATE
// (empty body) -> 401 with CHALLENGE -> AUTHENTICATE with the real request. One extra
// round trip per connection; later requests on cn need no credentials.
func (c *httpClient) ntlmLogon(ctx context.Context, cn *httpConn, body net.Buffers) (*httpResponse, error) {
	neg, err := ntlmssp.NewNegotiateMessage(c.domain, "")
	if err != nil {
		return nil, fmt.Errorf("building the NTLM negotiate message: %w", err)
	}
	resp, err := cn.exchange(ctx, c.addr, "Negotiate "+base64.StdEncoding.EncodeToString(neg), nil)
	if err != nil {
		return nil, err
	}
	if resp.status == http.StatusOK {
		if !resp.keepAlive || len(resp.body) > 0 {
			// Not WinRM answering an empty POST (that is an empty 200 on a kept
			// connection): hand the answer up to be named, rather than re-send on a
			// connection the server is closing and call that a drop.
			return resp, nil
		}
		return cn.exchange(ctx, c.addr, "", body) // the node asks for no logon
	}
	scheme, challenge := ntlmChallenge(resp.header)
	if resp.status != http.StatusUnauthorized || challenge == nil {
		return resp, nil // no NTLM here: the caller reports the 401 and what the node offers
	}
	if !resp.keepAlive {
		return nil, errors.New("the node closed the connection in the middle of the NTLM handshake")
	}
	auth, err := ntlmssp.ProcessChallenge(challenge, c.user, c.password)
	if err != nil {
		return nil, fmt.Errorf("answering the NTLM challenge: %w", err)
	}
	resp, err = cn.exchange(ctx, c.addr, scheme+" "+base64.StdEncoding.EncodeToString(auth), body)
	if err == nil && resp.status != http.StatusUnauthorized {
		cn.authed = true
	}
	return resp, err
}

// ntlmChallenge finds the CHALLENGE token in a 401's WWW-Authenticate headers.
func ntlmChallenge(h http.Header) (scheme string, token []byte) {
	for _, v := range h.Values("WWW-Authenticate") {
		s, data, _ := strings.Cut(strings.TrimSpace(v), " ")
		if (strings.EqualFold(s, "Negotiate") || strings.EqualFold(s, "NTLM")) && data != "" {
			if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data)); err == nil {
				return s, b
			}
		}
	}
	return "", nil
}

// exchange writes one POST and reads its answer. ctx ending sets a past deadline on the
// connection, which aborts a blocked read or write at once. The head and the body's parts
// go out in one write (writev on TCP), without copying them; the answer's body is read into
// one slice of its Content-Length.
func (cn *httpConn) exchange(ctx context.Context, host, auth string, body net.Buffers) (*httpResponse, error) {
	_ = cn.nc.SetDeadline(time.Now().Add(exchangeTimeout))
	stop := context.AfterFunc(ctx, func() { _ = cn.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	head := append(cn.head[:0], "POST /wsman HTTP/1.1\r\nHost: "...)
	head = append(head, host...)
	head = append(head, "\r\nUser-Agent: wintroubleshoot\r\nContent-Type: application/soap+xml;charset=UTF-8\r\nContent-Length: "...)
	n := 0
	for _, b := range body {
		n += len(b)
	}
	head = strconv.AppendInt(head, int64(n), 10)
	if auth != "" {
		head = append(head, "\r\nAuthorization: "...)
		head = append(head, auth...)
	}
	head = append(head, "\r\n\r\n"...)
	cn.head = head
	// A new slice each time: WriteTo consumes it, and body may be sent again (NTLM).
	bufs := append(make(net.Buffers, 0, 1+len(body)), head)
	bufs = append(bufs, body...)
	if _, err := bufs.WriteTo(cn.nc); err != nil {
		return nil, ioError(ctx, errNoReply, err)
	}
	resp, err := http.ReadResponse(cn.br, nil)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ioError(ctx, errDropped, err)
		}
		return nil, ioError(ctx, errNoReply, err)
	}
	data, err := readBody(resp)
	_ = resp.Body.Close()
	if err != nil {
		return nil, ioError(ctx, errDropped, err)
	}
	return &httpResponse{status: resp.StatusCode, header: resp.Header, body: data, keepAlive: !resp.Close}, nil
}

// readBody reads at most maxReplyBytes of the answer: into one slice of its length when
// it is known (WinRM always sends Content-Length), else growing as io.ReadAll does.
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= maxReplyBytes {
		data := make([]byte, n)
		_, err := io.ReadFull(resp.Body, data)
		return data, err
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
}

// ioError says why a read or write failed: the caller's ctx, our backstop deadline, or
// the node hanging up (kind is errNoReply before the answer began, errDropped inside it).
func ioError(ctx context.Context, kind, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", exchangeTimeout, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%w (%v)", kind, err)
	}
	return err
}

// conn returns a pooled connection that is still open, or dials a new one.
func (c *httpClient) conn(ctx context.Context) (*httpConn, error) {
	for {
		c.mu.Lock()
		n := len(c.idle)
		if n == 0 {
			c.mu.Unlock()
			return c.dial(ctx)
		}
		cn := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		if cn.usable() {
			return cn, nil
		}
		_ = cn.nc.Close()
	}
}

// usable checks a pooled connection before reuse: the node may have closed it while it
// idled, and a request sent into a closed connection is lost without a clear answer.
func (cn *httpConn) usable() bool {
	idle := time.Since(cn.idleSince)
	if idle > maxIdleAge || cn.br.Buffered() > 0 {
		return false
	}
	if idle < time.Second {
		return true // just answered with keep-alive: not closed yet
	}
	_ = cn.nc.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := cn.br.Peek(1)
	_ = cn.nc.SetReadDeadline(time.Time{})
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() // nothing to read and no EOF: still open
}

func (c *httpClient) dial(ctx context.Context) (*httpConn, error) {
	d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if c.tls != nil {
		tc := tls.Client(nc, c.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, ioError(ctx, errNoReply, fmt.Errorf("TLS handshake: %w", err))
		}
		nc = tc
	}
	// The reader holds an answer's head; bodies larger than it are read past it, straight
	// into their slice.
	return &httpConn{nc: nc, br: bufio.NewReaderSize(nc, 8<<10)}, nil
}

func (c *httpClient) release(cn *httpConn, keepAlive bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !keepAlive || c.closed || len(c.idle) >= maxIdleConns {
		_ = cn.nc.Close()
		return
	}
	cn.idleSince = time.Now()
	c.idle = append(c.idle, cn)
}

func (c *httpClient) closeIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, cn := range c.idle {
		_ = cn.nc.Close()
	}
	c.idle = nil
}
