package kube

import (
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

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
