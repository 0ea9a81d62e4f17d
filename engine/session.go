package engine

import (
	"context"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"sort"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Session is one connected run, the API every front end shares: the TUI, --report,
// snapshot and fix all start from one. Cluster evidence is already in Engine.Tree and
// the targets are resolved; the cmd package only turns flags into a Session.
type Session struct {
	Engine  *Engine
	Targets []Target
	// Fixer runs fixes on the session's nodes; nil when fixes are unavailable.
	Fixer *Fixer
	// Source, Cluster and Context head reports: where the evidence came from.
	Source, Cluster, Context string
}

// Probe sweeps and judges every target.
func (s *Session) Probe(ctx context.Context, emit func(Event)) []probes.Finding {
	return s.Engine.Probe(ctx, s.Targets, emit)
}

// Target finds a target by node name.
func (s *Session) Target(node string) (Target, bool) {
	for _, t := range s.Targets {
		if t.Name == node {
			return t, true
		}
	}
	return Target{}, false
}

// Fleet is the session as the screen drives it: one member per target, all sharing
// the session's engine and fix runner.
func (s *Session) Fleet(concurrency int) *Fleet {
	fl := NewFleet(concurrency)
	for _, t := range s.Targets {
		fl.Add(&Member{Display: t.Name, Target: t, Engine: s.Engine, Fixer: s.Fixer})
	}
	return fl
}

// Read reads evidence from the session's tree, for excerpts.
func (s *Session) Read(_, path string) ([]byte, error) { return s.Engine.Tree.Evidence().Read(path) }

// Discovered is a node the cluster listed, with the address it reports and its OS (the
// kubernetes.io/os label: evidence.Windows or evidence.Linux).
type Discovered struct {
	Name, Address string
	OS            evidence.OS
}

// Override says how to reach one node (a --node NAME=[SCHEME://]HOST[:PORT] entry); Port
// 0 means the transport's default.
type Override struct {
	Name string
	Kind transport.Kind
	Host string
	Port int
	// OS is evidence.Linux for a --node NAME=linux://HOST entry; a discovered node's label
	// wins over it.
	OS evidence.OS
}

// ConfigFunc builds a node's transport config (credentials included) from how to reach it.
type ConfigFunc func(kind transport.Kind, host string, port int) transport.Config

// ResolveTargets merges what the cluster discovered with the overrides, the one place
// that decides which nodes a run reaches and how:
//
//   - a discovered node is reached at its address with the default transport, or as its
//     override says;
//   - when the cluster gave no nodes (none found, or no cluster at all) the overrides are
//     the list of nodes to probe;
//   - otherwise an override naming no discovered node is not probed, and a warning says so;
//   - a Linux node is reached over SSH, unless the kind is auto or hostprocess (a
//     privileged pod through the cluster, collect/transport/hostprocess linux.go).
//
// Targets come back sorted by name.
func ResolveTargets(found []Discovered, overrides []Override, def transport.Kind, config ConfigFunc) ([]Target, []string) {
	byName := map[string]Override{}
	for _, o := range overrides {
		byName[o.Name] = o
	}
	var targets []Target
	var warnings []string
	seen := map[string]bool{}
	kindFor := func(os evidence.OS, k transport.Kind) transport.Kind {
		if os == evidence.Linux && k != transport.Auto && k != transport.HostProcess {
			return transport.SSH
		}
		return k
	}
	for _, n := range found {
		cfg := config(kindFor(n.OS, def), n.Address, 0)
		if o, ok := byName[n.Name]; ok {
			cfg = config(kindFor(n.OS, o.Kind), o.Host, o.Port)
			cfg.Given = true
		}
		cfg.Node = n.Name
		seen[n.Name] = true
		targets = append(targets, Target{Name: n.Name, Transport: cfg, OS: n.OS})
	}
	for _, o := range overrides {
		switch {
		case seen[o.Name]:
		case len(found) == 0:
			seen[o.Name] = true
			cfg := config(kindFor(o.OS, o.Kind), o.Host, o.Port)
			cfg.Node, cfg.Given = o.Name, true
			targets = append(targets, Target{Name: o.Name, Transport: cfg, OS: o.OS})
		default:
			warnings = append(warnings, fmt.Sprintf("--node %s: no node of that name among the cluster's nodes to probe (Linux workers only with --linux-nodes)", o.Name))
		}
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Name < targets[j].Name })
	return targets, warnings
}
