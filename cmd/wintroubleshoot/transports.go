package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// transportSpec is one way to reach a node, as it registers itself: the names it
// answers to, its own flags, what it copies from them into a node's config, whether it
// needs a password, and how it dials. A new transport is its package, its spec file
// here, and one line in transportRegistry: selection, help, completion, the password
// rule and the insecure-option warnings all come from this list.
type transportSpec struct {
	kinds []kindSpec
	// flags adds its own options; values land in the spec's own variables.
	flags func(f *pflag.FlagSet)
	// configure copies those options into a node's config.
	configure func(c *transport.Config)
	// needsPassword says whether, with the options given, it authenticates by password.
	needsPassword func() bool
	// validate checks its own options before anything connects (nil: nothing to
	// check): a bad value is a usage error, not a per-node failure.
	validate func() error
	// dial opens a node; warn prints a warning once per run (insecure options).
	dial func(cfg transport.Config, warn func(string)) (transport.Transport, error)
	// attach hands over the cluster client once the run has one (nil: the transport
	// does not use the cluster).
	attach func(c *kube.Client)
}

// kindSpec is one name of a transport, with its well-known port and its help.
type kindSpec struct {
	kind transport.Kind
	port int
	use  string
}

// transportRegistry is the one list of transports, in the order --transport help
// shows them; the first is the default.
func transportRegistry() transports {
	var ts transports
	ts = transports{winrmTransport(), sshTransport(), localTransport(), hostprocessTransport(),
		autoTransport(func() transports { return ts })}
	return ts
}

type transports []*transportSpec

func (ts transports) lookup(k transport.Kind) (*transportSpec, kindSpec, bool) {
	for _, s := range ts {
		for _, ks := range s.kinds {
			if ks.kind == k {
				return s, ks, true
			}
		}
	}
	return nil, kindSpec{}, false
}

func (ts transports) names() []string {
	var out []string
	for _, s := range ts {
		for _, ks := range s.kinds {
			out = append(out, string(ks.kind))
		}
	}
	return out
}

// parse reads a transport name (--transport, or the scheme of --node NAME=SCHEME://HOST).
func (ts transports) parse(s string) (transport.Kind, error) {
	if _, _, ok := ts.lookup(transport.Kind(s)); ok {
		return transport.Kind(s), nil
	}
	return "", fmt.Errorf("unknown transport %q (want %s)", s, strings.Join(ts.names(), ", "))
}

// help is the --transport flag's help.
func (ts transports) help() string {
	var parts []string
	for _, s := range ts {
		for _, ks := range s.kinds {
			parts = append(parts, string(ks.kind)+" ("+ks.use+")")
		}
	}
	return "how to reach nodes: " + strings.Join(parts, ", ")
}

// completions are the --transport values for shell completion.
func (ts transports) completions() []string {
	var out []string
	for _, s := range ts {
		for _, ks := range s.kinds {
			out = append(out, string(ks.kind)+"\t"+ks.use)
		}
	}
	return out
}

// addFlags adds every transport's own flags.
func (ts transports) addFlags(f *pflag.FlagSet) {
	for _, s := range ts {
		if s.flags != nil {
			s.flags(f)
		}
	}
}

// config is a node's config for a kind: the well-known port when none is given, then
// the transport's own options.
func (ts transports) config(c transport.Config) transport.Config {
	s, ks, ok := ts.lookup(c.Kind)
	if !ok {
		return c
	}
	if c.Port == 0 {
		c.Port = ks.port
	}
	if s.configure != nil {
		s.configure(&c)
	}
	return c
}

// attach gives every transport that uses the cluster its client.
func (ts transports) attach(c *kube.Client) {
	for _, s := range ts {
		if s.attach != nil {
			s.attach(c)
		}
	}
}

// validate checks every transport's own options.
func (ts transports) validate() error {
	for _, s := range ts {
		if s.validate != nil {
			if err := s.validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// needsPassword says whether reaching nodes with kind needs a password.
func (ts transports) needsPassword(k transport.Kind) bool {
	s, _, ok := ts.lookup(k)
	return !ok || s.needsPassword == nil || s.needsPassword()
}

// dialer opens transports for the engine; each distinct warning is printed once per
// run on warn (the engine dials from many goroutines).
func (ts transports) dialer(warn io.Writer) engine.DialFunc {
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
	return func(_ context.Context, cfg transport.Config) (transport.Transport, error) {
		s, _, ok := ts.lookup(cfg.Kind)
		if !ok {
			return nil, fmt.Errorf("unknown transport %q (want %s)", cfg.Kind, strings.Join(ts.names(), ", "))
		}
		return s.dial(cfg, once)
	}
}
