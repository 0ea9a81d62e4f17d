package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrKind classifies a failed API call by what the user can do about it.
type ErrKind int

const (
	ErrOther        ErrKind = iota
	ErrUnreachable          // the API server URL cannot be reached (network, DNS, TLS, timeout)
	ErrUnauthorized         // 401: credentials expired or invalid
	ErrForbidden            // 403: RBAC does not allow the call
	ErrNotFound             // 404: the object does not exist
	ErrConflict             // 409: the object changed meanwhile
)

// RBACFile is the minimal RBAC the tool needs, in this repository.
const RBACFile = "docs/rbac.yaml"

// APIError is a failed API call: what was being done, in which context, and why.
type APIError struct {
	Kind      ErrKind
	Verb      string // list, get, patch, create, delete
	Resource  string // nodes, pods/eviction, configmaps
	Namespace string // "" means cluster scope
	Name      string // object name, "" for lists
	Context   string
	Server    string
	Timeout   string // the per-request bound and its source, "30s (the default)"
	Err       error
}

func (e *APIError) Unwrap() error { return e.Err }

// what is "list nodes at cluster scope", "get configmaps kubeadm-config in namespace kube-system".
func (e *APIError) what() string {
	s := e.Verb + " " + e.Resource
	if e.Name != "" {
		s += " " + e.Name
	}
	if e.Namespace == "" {
		return s + " at cluster scope"
	}
	return s + " in namespace " + e.Namespace
}

func (e *APIError) Error() string {
	switch e.Kind {
	case ErrUnreachable:
		if isTimeout(e.Err) {
			return fmt.Sprintf("the API server at %s (context %q) gave no answer within the request timeout of %s to %s: %v; check it with `kubectl --context %s --request-timeout 10s cluster-info`, and if it is only slow, raise the bound with --request-timeout",
				e.Server, e.Context, e.Timeout, e.what(), e.Err, e.Context)
		}
		return fmt.Sprintf("cannot reach the API server at %s (context %q) to %s: %v; check the server and your network with `kubectl --context %s cluster-info`",
			e.Server, e.Context, e.what(), e.Err, e.Context)
	case ErrUnauthorized:
		return fmt.Sprintf("the API server at %s rejected the credentials of context %q (401 Unauthorized) to %s: they are expired or invalid; refresh them (for example `az aks get-credentials`, `gcloud container clusters get-credentials`, or a new token) and check with `kubectl --context %s auth whoami`",
			e.Server, e.Context, e.what(), e.Context)
	case ErrForbidden:
		hint := fmt.Sprintf("grant the minimal ClusterRole in %s: `kubectl apply -f %s` (then bind it to your user; see the file)", RBACFile, RBACFile)
		if e.Resource == "secrets" {
			hint = fmt.Sprintf("reading the node password Secret needs the separate Role commented in %s, created in namespace %s", RBACFile, e.Namespace)
		}
		return fmt.Sprintf("forbidden: cannot %s (context %q): %s; the server said: %v", e.what(), e.Context, hint, e.Err)
	case ErrNotFound:
		return fmt.Sprintf("cannot %s: not found (context %q): %v", e.what(), e.Context, e.Err)
	case ErrConflict:
		return fmt.Sprintf("cannot %s: the object changed meanwhile (context %q); run again: %v", e.what(), e.Context, e.Err)
	}
	return fmt.Sprintf("cannot %s (context %q, %s): %v", e.what(), e.Context, e.Server, e.Err)
}

// IsForbidden reports whether err is (or wraps) a 403 from the API.
func IsForbidden(err error) bool { return kindOf(err) == ErrForbidden }

// IsNotFound reports whether err is (or wraps) a 404 from the API.
func IsNotFound(err error) bool { return kindOf(err) == ErrNotFound }

func kindOf(err error) ErrKind {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return classify(err)
}

// fail wraps a client-go error with what was being done; nil stays nil. When the
// caller's ctx ended (cancelled, or its deadline passed) the error says so plainly: the
// server is not to blame, there is nothing to advise.
func (c *Client) fail(ctx context.Context, err error, verb, resource, namespace, name string) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		e := &APIError{Verb: verb, Resource: resource, Namespace: namespace, Name: name}
		return fmt.Errorf("%s: %w", e.what(), context.Cause(ctx))
	}
	return &APIError{Kind: classify(err), Verb: verb, Resource: resource, Namespace: namespace, Name: name,
		Context: c.context, Server: c.server, Timeout: c.timeout.String(), Err: err}
}

// isTimeout reports whether err is a request that ran out of time (http.Client.Timeout,
// which rest.Config.Timeout sets, or a dial or TLS handshake deadline) rather than one
// refused or reset.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

func classify(err error) ErrKind {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsUnauthorized(err):
		return ErrUnauthorized
	case apierrors.IsForbidden(err):
		return ErrForbidden
	case apierrors.IsNotFound(err):
		return ErrNotFound
	case apierrors.IsConflict(err):
		return ErrConflict
	case errors.As(err, &status):
		// Any other answer from the server: it is reachable.
		if status.Status().Code == http.StatusServiceUnavailable || status.Status().Code == http.StatusGatewayTimeout {
			return ErrUnreachable
		}
		return ErrOther
	}
	var netErr net.Error
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &netErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &certErr),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// No answer at all: dial, DNS, TLS, or a deadline.
		return ErrUnreachable
	}
	// Anything else (a failing credential plugin, a bad response) is shown as it is.
	return ErrOther
}

// DefaultRequestTimeout bounds each API request (dial, TLS handshake and the whole
// answer) when --request-timeout is not given. kubectl waits forever by default; this
// tool runs unattended in --report and a sweep, where an API server that accepts a
// connection and never answers must not hang the run. 30 s is far above what a healthy
// server needs for one page of a list (the lists here are paged, see pages).
const DefaultRequestTimeout = 30 * time.Second

// requestTimeout is the per-request bound and where it came from, named in errors.
type requestTimeout struct {
	d      time.Duration
	source string // "--request-timeout" or "the default"
}

// applyRequestTimeout sets cfg.Timeout. ToRESTConfig has already copied kubectl's
// --request-timeout into cfg.Timeout; a value of 0 (kubectl's "never time out", also
// the flag's default, so the two cannot be told apart) gets DefaultRequestTimeout.
func applyRequestTimeout(getter genericclioptions.RESTClientGetter, cfg *rest.Config) requestTimeout {
	explicit := false
	if f, ok := getter.(*genericclioptions.ConfigFlags); ok && f.Timeout != nil {
		d, err := clientcmd.ParseTimeout(*f.Timeout)
		explicit = err == nil && d > 0
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRequestTimeout
		explicit = false
	}
	rt := requestTimeout{d: cfg.Timeout, source: "the default"}
	if explicit {
		rt.source = "--request-timeout"
	}
	return rt
}

func (rt requestTimeout) String() string {
	return rt.d.String() + " (" + rt.source + ")"
}
