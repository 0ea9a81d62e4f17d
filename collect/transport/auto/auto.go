// Package auto is the transport that picks, per node, one that answers: WinRM HTTPS where
// a password is configured, SSH where a key or ssh-agent is, then a HostProcess pod
// through the cluster (not after an address given with --node: the user said how to
// reach it). It records which one answered and why the ones before it did not. The other
// transports' options all apply (each writes its own fields of the node's config).
package auto

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
)

// Spec registers auto over the other transports of the registry reg returns (a func, as
// the registry holds auto itself).
func Spec(reg func() transport.Registry) *transport.Spec {
	return &transport.Spec{
		Kinds: []transport.KindSpec{{Kind: transport.Auto, Use: "per node: winrm-https with a password, ssh with a key or agent, else hostprocess; a Linux worker: ssh with a key, agent or password, else a privileged pod; the report says which answered"}},
		Configure: func(c *transport.Config) {
			for _, s := range reg() {
				if s.Configure != nil && s.Kinds[0].Kind != transport.Auto {
					s.Configure(c)
				}
			}
		},
		NeedsPassword: func() bool { return false },
		Dial: func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
			ts := reg()
			a := &tr{dial: func(c transport.Config) (transport.Transport, error) {
				s, _, ok := ts.Lookup(c.Kind)
				if !ok {
					return nil, fmt.Errorf("unknown transport %q", c.Kind)
				}
				return s.Dial(ts.Config(c), warn)
			}}
			a.plan(cfg)
			return a, nil
		},
	}
}

// tr tries its candidates in order on the first Run and keeps the first that answers.
type tr struct {
	dial    func(transport.Config) (transport.Transport, error)
	cands   []transport.Config
	why     []string // one entry per candidate that did not answer, or was not tried
	chosen  transport.Transport
	chosenK transport.Kind
	cfg     transport.Config
	pod     string // "privileged pod" when a Linux node answered through one
}

// plan lists the candidates for one node, and why the others are left out.
func (a *tr) plan(cfg transport.Config) {
	a.cfg = cfg
	addr := func(k transport.Kind) transport.Config {
		c := cfg
		c.Kind = k
		return c
	}
	switch {
	case cfg.Host == "":
		a.why = append(a.why, "winrm-https, ssh: not tried, no node address")
	case cfg.Password == "" && cfg.KeyFile == "" && !cfg.UseAgent:
		a.why = append(a.why, "winrm-https, ssh: not tried, no node password, SSH key or ssh-agent configured")
	default:
		if cfg.Password != "" {
			a.cands = append(a.cands, addr(transport.WinRMHTTPS))
		}
		if cfg.KeyFile != "" || cfg.UseAgent {
			a.cands = append(a.cands, addr(transport.SSH))
		}
	}
	switch {
	case cfg.Given && len(a.cands) > 0:
		a.why = append(a.why, "hostprocess: not tried, --node gave this node's address")
		return
	case cfg.Node == "":
		a.why = append(a.why, "hostprocess: not tried, the node is not a cluster node")
		return
	}
	a.cands = append(a.cands, addr(transport.HostProcess))
}

// Run implements transport.Transport. A candidate that fails before printing anything
// (cannot connect, refused, no cluster) gives way to the next; one that printed, or a
// cancelled run, is the answer.
func (a *tr) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	if a.chosen != nil {
		return a.chosen.Run(ctx, cmd)
	}
	if hostprocess.IsLinuxCommandLine(cmd.CommandLine) {
		a.forLinux()
	}
	for _, c := range a.cands {
		tr, err := a.dial(c)
		if err == nil {
			out, rerr := tr.Run(ctx, cmd)
			if rerr == nil || len(out.Stdout) > 0 || ctx.Err() != nil {
				a.chosen, a.chosenK = tr, c.Kind
				if p, ok := tr.(interface{ Linux() bool }); ok && p.Linux() {
					a.pod = "privileged pod"
				}
				return out, rerr
			}
			err = errors.Join(rerr, tr.Close())
		}
		a.why = append(a.why, fmt.Sprintf("%s: %v", c.Kind, err))
	}
	return transport.Output{}, fmt.Errorf("no transport reached the node (--transport auto): %s", strings.Join(a.why, "; "))
}

// forLinux re-plans for a Linux worker (its sweep is the shell's): SSH when a credential
// is configured for it (a password too, offered to sshd; never WinRM), else the
// privileged pod. A Linux worker with a credential is not tried through a pod: the user
// said how to log in, and a node whose sshd refuses would otherwise wait out the pod's
// start timeout too.
func (a *tr) forLinux() {
	var cands []transport.Config
	ssh := false
	for _, c := range a.cands {
		switch c.Kind {
		case transport.WinRMHTTPS:
			if a.cfg.KeyFile != "" || a.cfg.UseAgent {
				continue // SSH follows, with the key or agent
			}
			c.Kind = transport.SSH
			fallthrough
		case transport.SSH:
			ssh = true
		case transport.HostProcess:
			if ssh {
				a.why = append(a.why, "hostprocess: not tried, an SSH credential is configured for this Linux node")
				continue
			}
		}
		cands = append(cands, c)
	}
	a.cands = cands
	for i, w := range a.why {
		a.why[i] = strings.Replace(w, "winrm-https, ssh:", "ssh:", 1)
	}
}

// Via implements transport.Chooser: a Linux node reached through the cluster says it was
// the privileged pod, not a HostProcess one.
func (a *tr) Via() (transport.Kind, string) {
	why := strings.Join(a.why, "; ")
	if a.pod != "" {
		why = strings.TrimSuffix(a.pod+"; "+why, "; ")
	}
	return a.chosenK, why
}

// Close implements transport.Transport.
func (a *tr) Close() error {
	if a.chosen == nil {
		return nil
	}
	return a.chosen.Close()
}
