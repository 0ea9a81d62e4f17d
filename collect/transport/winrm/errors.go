package winrm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// Hints: what a person can do about each failure, ideally something to paste.
const (
	hintListening = "is WinRM listening? on the node: winrm quickconfig (for HTTPS: winrm quickconfig -transport:https); " +
		"from a Windows machine: Test-WSMan -ComputerName <node>; check firewalls for the port"
	hintNoReply = "the node accepted the connection and closed it without answering: a firewall or proxy in between, " +
		"or a broken listener (on the node: winrm enumerate winrm/config/listener; Test-WSMan)"
	hintPassword = "check --user and the password source (local account: Administrator or .\\Administrator; " +
		"domain account: DOMAIN\\user)"
	hintTLS         = "pass --winrm-ca-file with the node's certificate (PEM), or --winrm-insecure-skip-tls-verify to skip the check"
	hintUnencrypted = "the node refuses unencrypted WinRM on plain HTTP: use --transport winrm-https, " +
		"or on the node: winrm set winrm/config/service '@{AllowUnencrypted=\"true\"}'"
	hintDropped  = "the connection dropped mid-reply (network, proxy or a WinRM service restart): run again"
	hintEnvelope = "a request exceeded the node's MaxEnvelopeSizekb; on the node: Set-Item WSMan:\\localhost\\MaxEnvelopeSizekb 8192"
	hintQuota    = "the user has too many open WinRM shells (MaxShellsPerUser, default 30): wait for other sessions to end, " +
		"or on the node: winrm set winrm/config/winrs '@{MaxShellsPerUser=\"50\"}'"
)

// fail wraps err as a *transport.Error for the step op, re-labelling the step when the
// cause is the connection, the logon or the certificate, and adding a hint.
func (t *winrmTransport) fail(ctx context.Context, op string, err error) error {
	e := &transport.Error{Kind: t.cfg.Kind, Addr: t.addr, Op: op, Err: err}
	var (
		fe      *faultError
		nw      *notWinRMError
		se      *statusError
		dnsErr  *net.DNSError
		opErr   *net.OpError
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)):
		e.Err = fmt.Errorf("gave up waiting for the node: %w", err)
		e.Hint = "the node is slower than --timeout"
		if t.cfg.Timeout > 0 {
			e.Hint += " (" + t.cfg.Timeout.String() + ")"
		}
		e.Hint += ": raise --timeout or check the node's load; the command is stopped and its shell deleted"
	case errors.Is(err, context.Canceled):
		// The caller gave up; nothing to suggest.
	case errors.As(err, &host):
		e.Op, e.Hint = "verify TLS", "the node's certificate does not name "+t.cfg.Host+
			": connect by a name the certificate lists, or "+hintTLS
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &invalid):
		e.Op, e.Hint = "verify TLS", hintTLS
	case errors.As(err, &record):
		e.Op, e.Hint = "connect", "the port does not speak TLS (probably the HTTP listener): use --transport winrm, port 5985"
	case errors.As(err, &dnsErr):
		e.Op, e.Hint = "connect", "check the node's name or IP address"
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Op, e.Hint = "connect", hintListening
	case errors.As(err, &opErr) && opErr.Op == "dial":
		e.Op, e.Hint = "connect", fmt.Sprintf("no answer from %s: check the address, routing and firewalls for port %d", t.addr, portOf(t.cfg))
	case errors.Is(err, errNoReply):
		if op == "create shell" {
			e.Op = "connect"
		}
		e.Hint = hintNoReply
	case errors.Is(err, errDropped):
		e.Hint = hintDropped
	case errors.Is(err, os.ErrDeadlineExceeded):
		e.Hint = "the node stopped answering; check that it is up and the WinRM service is running (Get-Service WinRM)"
	case errors.As(err, &nw):
		e.Op, e.Hint = "connect", hintNotWinRM
	case errors.As(err, &se):
		t.statusHint(e, se)
	case errors.As(err, &fe):
		switch fe.wsman {
		case faultShellQuota:
			e.Hint = hintQuota
		case faultShellNotFound:
			e.Hint = "the node no longer knows the shell (WinRM service restarted, or the shell idled out): run again"
		}
	}
	t.scrub(e)
	return e
}

func (t *winrmTransport) statusHint(e *transport.Error, se *statusError) {
	offers := func(scheme string) bool {
		return slices.ContainsFunc(se.offered, func(s string) bool { return strings.EqualFold(s, scheme) })
	}
	switch se.status {
	case http.StatusUnauthorized:
		e.Op, e.Hint = "authenticate", hintPassword
		switch {
		case t.auth == authBasic && !offers("Basic") && !t.https:
			e.Hint = "Basic authentication on plain HTTP is refused (the node's AllowUnencrypted is false): " +
				"use --transport winrm-https or --winrm-auth ntlm, or on the node: " +
				"winrm set winrm/config/service '@{AllowUnencrypted=\"true\"}'"
		case t.auth == authBasic && !offers("Basic"):
			e.Hint = "the node does not accept Basic authentication: use --winrm-auth ntlm, " +
				"or on the node: winrm set winrm/config/service/auth '@{Basic=\"true\"}'"
		case t.auth == authNTLM && !offers("Negotiate") && !offers("NTLM"):
			e.Hint = "the node does not accept NTLM (Negotiate): use --winrm-auth basic over HTTPS, " +
				"or on the node: winrm set winrm/config/service/auth '@{Negotiate=\"true\"}'"
		}
	case http.StatusRequestEntityTooLarge:
		e.Hint = hintEnvelope
	case http.StatusServiceUnavailable:
		e.Hint = "the node's HTTP service answered 503: the WinRM service is stopped or overloaded; on the node: Get-Service WinRM, Restart-Service WinRM"
	case http.StatusInternalServerError:
		// An empty 500 right after an NTLM logon on HTTP is Windows refusing an unsealed message.
		if !t.https && se.text == "" {
			e.Hint = hintUnencrypted
		} else {
			e.Hint = "see the node's Microsoft-Windows-WinRM/Operational event log"
		}
	}
}

// scrub guarantees the password never reaches an error text, whatever a library put there.
func (t *winrmTransport) scrub(e *transport.Error) {
	pw := t.cfg.Password
	if len(pw) >= 4 && e.Err != nil && strings.Contains(e.Err.Error(), pw) {
		e.Err = errors.New(strings.ReplaceAll(e.Err.Error(), pw, "[password]"))
	}
}

// notWinRMError is an HTTP answer from something that is not a WinRM listener: a web
// server, a proxy's error page, a kubelet or an application on the port. WinRM answers
// every request but an authentication challenge with a SOAP envelope
// (application/soap+xml), or, for a few refusals, with an empty body.
type notWinRMError struct {
	addr        string
	status      int
	contentType string
	title       string // an HTML page's <title>, which usually names the server
}

func (e *notWinRMError) Error() string {
	s := fmt.Sprintf("the server at %s answered HTTP %d %s but is not a WinRM endpoint", e.addr, e.status, http.StatusText(e.status))
	var about []string
	if e.contentType != "" {
		about = append(about, "Content-Type "+e.contentType)
	}
	if e.title != "" {
		about = append(about, fmt.Sprintf("page title %q", e.title))
	}
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

const hintNotWinRM = "check the port: WinRM listens on 5985 (HTTP) and 5986 (HTTPS); " +
	"on the node: winrm enumerate winrm/config/listener"

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>\s*([^<]{1,120})`)

// notWinRM names an answer no WinRM listener gives, nil for one it may. 401 stays with
// the authentication diagnosis; an empty 413 or 500 is Windows' own refusal.
func notWinRM(resp *httpResponse) *notWinRMError {
	body := bytes.TrimSpace(resp.body)
	ct := resp.header.Get("Content-Type")
	switch {
	case resp.status == http.StatusUnauthorized, resp.status == http.StatusServiceUnavailable:
		// 503 is HTTP.sys itself (its HTML page) when the service behind a registered
		// URL, WinRM here, is stopped or overloaded: statusHint says so.
		return nil
	case strings.Contains(strings.ToLower(ct), "soap+xml"), bytes.Contains(body, []byte("Envelope")):
		return nil
	case len(body) == 0 && resp.status != http.StatusOK && resp.status != http.StatusNotFound && resp.status != http.StatusMethodNotAllowed:
		return nil
	}
	e := &notWinRMError{status: resp.status, contentType: ct}
	if m := htmlTitle.FindSubmatch(body); m != nil {
		e.title = strings.TrimSpace(string(m[1]))
	}
	return e
}
