// Package winrm runs commands on a Windows node over WinRM: WS-Management's remote shell
// (WinRS) on HTTP port 5985 or HTTPS port 5986, with Basic or NTLM authentication.
//
// The SOAP requests are github.com/masterzen/winrm's, rendered as text (envelope.go,
// tested byte for byte against masterzen's DOM); replies are scanned by hand, with
// masterzen's parsers and encoding/xml behind for anything unusual (receive*.go). The
// HTTP exchange is ours (http.go): masterzen's client (this version) takes no context,
// cannot cancel a blocked Receive, sends stdin's end as an extra request, and its NTLM
// negotiator re-sends every body up to three times. One Run costs create, command, send,
// receive and delete: five requests, plus one NTLM challenge per new connection; a sweep's
// output usually arrives in one Receive.
package winrm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/Azure/go-ntlmssp"
	mz "github.com/masterzen/winrm"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

const (
	// maxCommandLine is cmd.exe's limit: WinRS runs every command line through `cmd /c`.
	maxCommandLine = 8191
	// envelopeSize is the MaxEnvelopeSize we ask replies to fit in (what Windows 2008 R2
	// allowed by default; later versions allow 500 KB).
	envelopeSize = 150 * 1024
	// stdinChunk is the stdin carried by one Send: 128 KiB as base64, so the whole
	// envelope stays under envelopeSize and under any MaxEnvelopeSizekb a node may set.
	stdinChunk = 96 * 1024
	// operationTimeout is how long one Receive may wait on the node for output before the
	// node answers "still running" (w:TimedOut) and we ask again. 60 s is MaxTimeoutms'
	// default; the caller's deadline still cuts a waiting Receive short.
	operationTimeout = "PT60S"
	// cleanupTimeout bounds the Signal and Delete sent after a failed or cancelled Run.
	cleanupTimeout = 5 * time.Second
)

type winrmTransport struct {
	cfg    transport.Config
	addr   string
	url    string
	https  bool
	auth   string
	http   *httpClient
	params *mz.Parameters
	warn   []string // insecure choices the caller opted into, see Warnings

	mu       sync.Mutex
	closed   bool
	cleanups sync.WaitGroup // background Signal+Delete after failed Runs; Add only while !closed
}

// New prepares a WinRM transport; it connects on the first Run. cfg.Kind is
// transport.WinRM (HTTP) or transport.WinRMHTTPS; cfg.Auth is "ntlm" (default) or
// "basic". HTTPS verifies the node's certificate against cfg.CAFile, or the system roots
// when it is empty, unless cfg.InsecureSkipTLSVerify.
func New(cfg transport.Config) (transport.Transport, error) {
	t := &winrmTransport{cfg: cfg, addr: cfg.Address()}
	fail := func(err error, hint string) (transport.Transport, error) {
		return nil, &transport.Error{Kind: cfg.Kind, Addr: t.addr, Op: "configure", Err: err, Hint: hint}
	}
	switch cfg.Kind {
	case transport.WinRM:
	case transport.WinRMHTTPS:
		t.https = true
	default:
		return fail(fmt.Errorf("transport kind %q is not WinRM", cfg.Kind), "use --transport winrm or winrm-https")
	}
	if cfg.Host == "" {
		return fail(errors.New("no node address"), "pass the node's name or IP address")
	}
	switch t.auth = strings.ToLower(cfg.Auth); t.auth {
	case "", "ntlm", "negotiate":
		t.auth = authNTLM
	case authBasic:
	default:
		return fail(fmt.Errorf("unknown WinRM authentication %q", cfg.Auth), "use --winrm-auth ntlm or basic")
	}
	if cfg.User == "" {
		return fail(errors.New("no user name"), "pass --user (a local account: Administrator; a domain account: DOMAIN\\user)")
	}
	if t.auth == authBasic && !t.https {
		// Basic puts user:password, base64 only, in the first request's header.
		if !cfg.AllowBasicOverHTTP {
			return fail(fmt.Errorf("refusing Basic authentication over plain HTTP: it would send the password to %s in clear", t.addr),
				"use HTTPS (--transport winrm-https, port 5986), or --winrm-auth ntlm, which never sends the password; "+
					"or accept the risk with --winrm-allow-basic-over-http")
		}
		t.warn = append(t.warn, fmt.Sprintf("WinRM Basic authentication over plain HTTP sends the password to %s in clear (--winrm-allow-basic-over-http); prefer HTTPS (5986) or NTLM", t.addr))
	}
	scheme := "http"
	var tlsConfig *tls.Config
	if t.https {
		scheme = "https"
		tlsConfig = &tls.Config{
			ServerName:         cfg.Host,
			InsecureSkipVerify: cfg.InsecureSkipTLSVerify, //nolint:gosec // explicit --winrm-insecure-skip-tls-verify
			MinVersion:         tls.VersionTLS12,
			NextProtos:         []string{"http/1.1"},
		}
		if cfg.CAFile != "" && !cfg.InsecureSkipTLSVerify {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return fail(fmt.Errorf("reading the CA file: %w", err), "check the --winrm-ca-file path")
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return fail(fmt.Errorf("no PEM certificate in %s", cfg.CAFile),
					"--winrm-ca-file wants PEM: export the node's certificate as Base-64 X.509 (.cer)")
			}
			tlsConfig.RootCAs = pool
		}
	}
	t.url = fmt.Sprintf("%s://%s/wsman", scheme, hostPort(cfg.Host, portOf(cfg)))
	t.params = mz.NewParameters(operationTimeout, "en-US", envelopeSize)
	user, domain := ntlmssp.GetDomain(cfg.User)
	t.http = &httpClient{
		addr:     hostPort(cfg.Host, portOf(cfg)),
		tls:      tlsConfig,
		auth:     t.auth,
		user:     user,
		domain:   domain,
		password: cfg.Password,
		basic:    "Basic " + base64.StdEncoding.EncodeToString([]byte(cfg.User+":"+cfg.Password)),
	}
	return t, nil
}

// Endpoint is the kind and host:port this transport reaches.
func (t *winrmTransport) Endpoint() (transport.Kind, string) { return t.cfg.Kind, t.addr }

// Warnings are the insecure settings this transport runs with, for the caller to print.
func (t *winrmTransport) Warnings() []string { return t.warn }

func portOf(cfg transport.Config) int {
	if cfg.Port != 0 {
		return cfg.Port
	}
	return cfg.Kind.DefaultPort()
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, fmt.Sprint(port)) }

// Run runs cmd.CommandLine in a new shell with cmd.Stdin streamed on its stdin (in pipe
// mode) and returns what it printed; when it fails midway, with what had arrived. Cancelling ctx, or passing its deadline or cfg.Timeout, aborts the
// request in flight; the shell is then stopped and deleted in the background.
func (t *winrmTransport) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return transport.Output{}, t.fail(ctx, "run", errors.New("transport is closed"))
	}
	if t.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.Timeout)
		defer cancel()
	}
	if n := len(utf16.Encode([]rune(cmd.CommandLine))); n > maxCommandLine {
		return transport.Output{}, &transport.Error{Kind: t.cfg.Kind, Addr: t.addr, Op: "run",
			Err:  fmt.Errorf("the command line has %d characters; cmd.exe accepts %d", n, maxCommandLine),
			Hint: "send the script on stdin behind a short bootstrap (scripts.CommandLine)"}
	}
	shellID, err := t.createShell(ctx)
	if err != nil {
		return transport.Output{}, t.fail(ctx, "create shell", err)
	}
	out, commandID, op, err := t.runIn(ctx, shellID, cmd)
	if err != nil {
		t.cleanupLater(shellID, commandID)
		return out, t.fail(ctx, op, err) // out: what arrived before the failure
	}
	// The command is Done: deleting the shell ends it too, so no Signal round trip. The
	// output is complete either way; a shell that fails to delete idles out on the node.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	_ = t.deleteShell(dctx, shellID)
	cancel()
	return out, nil
}

// cleanupLater stops the command (when one started) and deletes the shell, off the
// caller's path and with its own short deadline: the caller's ctx may be the reason we stop.
func (t *winrmTransport) cleanupLater(shellID, commandID string) {
	cleanup := func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if commandID != "" {
			_ = t.signal(ctx, shellID, commandID)
		}
		_ = t.deleteShell(ctx, shellID)
	}
	t.mu.Lock()
	closed := t.closed
	if !closed {
		t.cleanups.Add(1)
	}
	t.mu.Unlock()
	if closed { // Close is already waiting: clean up before returning instead
		cleanup()
		return
	}
	go func() {
		defer t.cleanups.Done()
		cleanup()
	}()
}

// Close waits for background cleanups (bounded by cleanupTimeout) and drops idle connections.
func (t *winrmTransport) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cleanups.Wait()
	t.http.closeIdle()
	return nil
}
