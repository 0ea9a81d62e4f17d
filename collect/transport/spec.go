package transport

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Spec is one way to reach a node, as its package registers it: the names it answers to,
// its own options and flags (as kubectl's drain binds its flags onto drain.Helper), what
// it copies from them into a node's config, whether it needs a password, and how it
// dials. A new transport is its package, with a Spec, and one line in
// collect/transports: selection, help, completion, the password rule and the
// insecure-option warnings all come from the list.
type Spec struct {
	Kinds []KindSpec
	// Bind adds its own flags; values land in the transport's Options.
	Bind func(f *pflag.FlagSet)
	// Configure copies those options into a node's config.
	Configure func(c *Config)
	// NeedsPassword says whether, with the options given, it authenticates by password.
	NeedsPassword func() bool
	// Validate checks its own options before anything connects (nil: nothing to check):
	// a bad value is a usage error, not a per-node failure.
	Validate func() error
	// Dial opens a node; warn prints a warning once per run (insecure options).
	Dial func(cfg Config, warn func(string)) (Transport, error)
	// Attach hands over the cluster client once the run has one (nil: the transport does
	// not use the cluster).
	Attach func(c Cluster)
}

// KindSpec is one name of a transport, with its well-known port and its help.
type KindSpec struct {
	Kind Kind
	Port int
	Use  string
}

// Cluster is what a transport that goes through the Kubernetes API needs of the run's
// cluster client (collect/kube.Client has it).
type Cluster interface {
	Interface() kubernetes.Interface
	RESTConfig() *rest.Config
	Namespace() string
}

// Registry is the list of transports, in the order --transport help shows them; the
// first is the default.
type Registry []*Spec

// Lookup finds the transport of a kind.
func (r Registry) Lookup(k Kind) (*Spec, KindSpec, bool) {
	for _, s := range r {
		for _, ks := range s.Kinds {
			if ks.Kind == k {
				return s, ks, true
			}
		}
	}
	return nil, KindSpec{}, false
}

// Names are every kind's name, in order.
func (r Registry) Names() []string {
	var out []string
	for _, s := range r {
		for _, ks := range s.Kinds {
			out = append(out, string(ks.Kind))
		}
	}
	return out
}

// Parse reads a transport name (--transport, or the scheme of --node NAME=SCHEME://HOST).
func (r Registry) Parse(s string) (Kind, error) {
	if _, _, ok := r.Lookup(Kind(s)); ok {
		return Kind(s), nil
	}
	return "", fmt.Errorf("unknown transport %q (want %s)", s, strings.Join(r.Names(), ", "))
}

// Help is the --transport flag's help.
func (r Registry) Help() string {
	var parts []string
	for _, s := range r {
		for _, ks := range s.Kinds {
			parts = append(parts, string(ks.Kind)+" ("+ks.Use+")")
		}
	}
	return "how to reach nodes: " + strings.Join(parts, ", ")
}

// Completions are the --transport values for shell completion.
func (r Registry) Completions() []string {
	var out []string
	for _, s := range r {
		for _, ks := range s.Kinds {
			out = append(out, string(ks.Kind)+"\t"+ks.Use)
		}
	}
	return out
}

// Bind adds every transport's own flags.
func (r Registry) Bind(f *pflag.FlagSet) {
	for _, s := range r {
		if s.Bind != nil {
			s.Bind(f)
		}
	}
}

// Config is a node's config for a kind: the well-known port when none is given, then the
// transport's own options.
func (r Registry) Config(c Config) Config {
	s, ks, ok := r.Lookup(c.Kind)
	if !ok {
		return c
	}
	if c.Port == 0 {
		c.Port = ks.Port
	}
	if s.Configure != nil {
		s.Configure(&c)
	}
	return c
}

// Attach gives every transport that uses the cluster its client.
func (r Registry) Attach(c Cluster) {
	for _, s := range r {
		if s.Attach != nil {
			s.Attach(c)
		}
	}
}

// Validate checks every transport's own options.
func (r Registry) Validate() error {
	for _, s := range r {
		if s.Validate != nil {
			if err := s.Validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// NeedsPassword says whether reaching nodes with kind needs a password.
func (r Registry) NeedsPassword(k Kind) bool {
	s, _, ok := r.Lookup(k)
	return !ok || s.NeedsPassword == nil || s.NeedsPassword()
}

// Dialer opens transports for the engine; each distinct warning is printed once per run
// on warn (the engine dials from many goroutines).
func (r Registry) Dialer(warn io.Writer) func(context.Context, Config) (Transport, error) {
	var mu sync.Mutex
	said := map[string]bool{}
	once := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if !said[msg] {
			said[msg] = true
			fmt.Fprintln(warn, "warning:", msg)
		}
	}
	return func(_ context.Context, cfg Config) (Transport, error) {
		s, _, ok := r.Lookup(cfg.Kind)
		if !ok {
			return nil, fmt.Errorf("unknown transport %q (want %s)", cfg.Kind, strings.Join(r.Names(), ", "))
		}
		return s.Dial(cfg, once)
	}
}
