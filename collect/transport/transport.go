// Package transport is how a sweep reaches one node: the Transport interface, the
// Config every transport is dialled with, and the Spec a transport registers (spec.go:
// its kind, its own flags and options, how it dials). The transports are its
// subpackages: WinRM (winrm/), SSH (ssh/, Windows OpenSSH or a Linux worker's sshd), this
// machine (local/), a HostProcess pod through the API server (hostprocess/), and the
// first of them that answers (auto/). Each runs one command line with a body on stdin and
// honours ctx: cancelling it or passing its deadline really stops the remote call.
package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Command is one remote command: a short command line (cmd.exe caps it at 8191
// characters) and the script body on stdin.
type Command struct {
	CommandLine string
	Stdin       []byte // read, never written: one slice may go to many nodes at once
	// StdinBase64, when not nil, is Stdin in standard base64, encoded once by a caller
	// sending one stdin to many nodes (sweep.Plan): WinRM carries stdin base64-encoded in
	// its Send requests and sends slices of it. Other transports send Stdin.
	StdinBase64 []byte
}

// Output is what the command printed and its exit status.
type Output struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// Transport runs commands on one node.
type Transport interface {
	Run(ctx context.Context, cmd Command) (Output, error)
	Close() error
}

// Kind names a transport.
type Kind string

const (
	WinRM      Kind = "winrm"       // HTTP, port 5985
	WinRMHTTPS Kind = "winrm-https" // HTTPS, port 5986
	SSH        Kind = "ssh"         // port 22
	Local      Kind = "local"       // this machine (Windows only)
	// HostProcess is a short-lived HostProcess pod on the node, reached through the
	// Kubernetes API (pods/exec): no node address or credentials.
	HostProcess Kind = "hostprocess"
	// Auto picks per node: WinRM or SSH where an address and credentials are configured,
	// else (or when those do not answer) HostProcess.
	Auto Kind = "auto"
)

// DefaultPort is the well-known port of a transport kind.
func (k Kind) DefaultPort() int {
	switch k {
	case WinRM:
		return 5985
	case WinRMHTTPS:
		return 5986
	default:
		return 22
	}
}

// ParseKind reads a transport name.
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case WinRM, WinRMHTTPS, SSH, Local, HostProcess, Auto:
		return Kind(s), nil
	}
	return "", fmt.Errorf("unknown transport %q (want winrm-https, winrm, ssh, local, hostprocess or auto)", s)
}

// Config says how to reach and authenticate to one node. Password is a secret: it is
// never logged, printed or put on a command line.
type Config struct {
	Kind Kind
	Node string // the Kubernetes node name (HostProcess reaches the node by it)
	// Given: the address was given for this node (--node), not discovered; auto then
	// sticks to it rather than fall back to a pod.
	Given bool
	Host  string
	Port  int // 0: the kind's default

	User     string
	Password string `json:"-"`

	// WinRM
	Auth string // "basic" or "ntlm" (default ntlm)
	// AllowBasicOverHTTP lets Basic authentication run over plain HTTP (kind WinRM),
	// where its first request carries the password in clear, base64 only. Without it
	// that combination is refused before anything is sent; with it the transport
	// reports a warning (see Warnings). NTLM over HTTP never sends the password.
	AllowBasicOverHTTP    bool
	CAFile                string // PEM bundle; empty: system roots
	InsecureSkipTLSVerify bool

	// SSH
	KeyFile               string
	UseAgent              bool
	KnownHosts            string // known_hosts file; empty: ~/.ssh/known_hosts
	InsecureIgnoreHostKey bool

	// Timeout bounds one Run when ctx has no earlier deadline; 0 means none.
	Timeout time.Duration
}

// Warner is a Transport that knows of insecure settings its caller chose, one line
// each, for the caller to print before the transport is used.
type Warner interface {
	Warnings() []string
}

// WarningsOf is t's warnings, none when t is not a Warner.
func WarningsOf(t Transport) []string {
	if w, ok := t.(Warner); ok {
		return w.Warnings()
	}
	return nil
}

// Chooser is a Transport that picked one of several ways to reach its node (auto): Via
// names the one that answered and why the ones before it did not ("" before it chose).
type Chooser interface {
	Via() (Kind, string)
}

// ViaOf is how t reached its node: a Chooser's choice, else cfg's kind.
func ViaOf(t Transport, cfg Config) (Kind, string) {
	if c, ok := t.(Chooser); ok {
		if k, why := c.Via(); k != "" {
			return k, why
		}
	}
	return cfg.Kind, ""
}

// Endpoint is a Transport that can say what it reaches, so an error found above it (a
// reply that is not what was asked for) can name the transport and the address too.
type Endpoint interface {
	Endpoint() (Kind, string) // the kind and host:port
}

// ReplyError wraps err, a problem with what came back over t rather than with t itself,
// as an *Error naming t's kind and address when t is an Endpoint. An *Error stays as it is.
func ReplyError(t Transport, err error, hint string) error {
	var te *Error
	ep, ok := t.(Endpoint)
	if err == nil || !ok || errors.As(err, &te) {
		return err
	}
	kind, addr := ep.Endpoint()
	return &Error{Kind: kind, Addr: addr, Op: "read the reply", Err: err, Hint: hint}
}

// Address is host:port with the kind's default port filled in.
func (c Config) Address() string {
	if c.Kind == HostProcess {
		return "node/" + c.Node // reached through the API server, not at an address
	}
	p := c.Port
	if p == 0 {
		p = c.Kind.DefaultPort()
	}
	return net.JoinHostPort(c.Host, strconv.Itoa(p))
}

// Error is a transport failure a person can act on: where, what, and what to try.
type Error struct {
	Kind Kind
	Addr string
	Op   string // "connect", "authenticate", "verify TLS", "verify host key", "run", ...
	Err  error
	Hint string // what to try, ideally a command to paste
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s %s: %s: %v", e.Kind, e.Addr, e.Op, e.Err)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }
