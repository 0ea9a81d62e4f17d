package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// podQuestion is what the tool says before it creates its first pod in the cluster:
// where (namespace, the first node), what (a HostProcess pod as SYSTEM, the image), and
// why (the node gave no other way in). The screen asks it; --report says it on stderr.
type podQuestion struct {
	Namespace, Node string
	What, Why       []string
}

// Title is the question itself, the same words on the screen and on stderr.
func (q podQuestion) Title() string {
	return fmt.Sprintf("Create a HostProcess pod on node %s in namespace %s?", q.Node, q.Namespace)
}

// Lines is the question's body: what the pod is and why the tool wants one.
func (q podQuestion) Lines() []string {
	l := append([]string{}, q.What...)
	l = append(l, q.Why...)
	return append(l, "The answer holds for every node this run reaches this way; --allow-hostprocess creates them without asking, --no-hostprocess never.")
}

// podGate stands before the hostprocess transport: it says what the first pod will be
// and, on the screen, asks; the answer holds for the rest of the run. --allow-hostprocess
// creates pods without asking, --no-hostprocess never creates one (the node then reads
// as unreachable, saying why).
type podGate struct {
	allow, forbid bool
	notice        io.Writer // stderr: what --report and fix say before the first pod
	question      func(cfg transport.Config) podQuestion
	mu            sync.Mutex
	ask           func(q podQuestion) bool // the screen's confirm; nil: say it and go on
	decided, ok   bool
}

// setAsk makes the gate ask through the screen from now on.
func (g *podGate) setAsk(ask func(q podQuestion) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ask = ask
}

// admit decides whether a pod may be created for cfg's node: once per run.
func (g *podGate) admit(cfg transport.Config) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.forbid {
		return g.refuse(cfg, "HostProcess pods are forbidden by --no-hostprocess", "give node credentials (WTS_PASSWORD, --ssh-key), or drop --no-hostprocess")
	}
	if !g.decided {
		q := g.question(cfg)
		switch {
		case g.ask != nil && !g.allow:
			g.ok = g.ask(q)
		default:
			fmt.Fprintln(g.notice, safeLine("note: "+strings.TrimSuffix(q.Title(), "?")+" (and on any other node reached this way):"))
			for _, l := range q.Lines() {
				fmt.Fprintln(g.notice, safeLine("  "+l))
			}
			g.ok = true
		}
		g.decided = true
	}
	if !g.ok {
		return g.refuse(cfg, "creating a HostProcess pod was declined", "answer y at the question, or pass --allow-hostprocess")
	}
	return nil
}

func (g *podGate) refuse(cfg transport.Config, why, hint string) error {
	return &transport.Error{Kind: transport.HostProcess, Addr: cfg.Node, Op: "create the pod", Err: errors.New(why), Hint: hint}
}

// install puts the gate before the registry's hostprocess dial, which auto's fallback
// goes through too (auto looks the transport up in the same registry).
func (g *podGate) install(reg transport.Registry) {
	s, _, ok := reg.Lookup(transport.HostProcess)
	if !ok || s.Dial == nil {
		return
	}
	dial := s.Dial
	s.Dial = func(cfg transport.Config, warn func(string)) (transport.Transport, error) {
		if err := g.admit(cfg); err != nil {
			return nil, err
		}
		return dial(cfg, warn)
	}
}

// podFlags are the two answers given in advance.
type podFlags struct{ allow, forbid bool }

func (p *podFlags) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&p.allow, "allow-hostprocess", false, "create HostProcess pods (SYSTEM, on the nodes no credentials reach) without asking first")
	f.BoolVar(&p.forbid, "no-hostprocess", false, "never create a pod in the cluster: nodes without credentials read as unreachable")
}

// podQuestionFor builds the gate's question from the run's flags: flagValue reads a
// flag by name (the transports' own flags live in their packages).
func (a *nodeAccess) podQuestionFor(namespace func() string, flagValue func(string) string) func(cfg transport.Config) podQuestion {
	return func(cfg transport.Config) podQuestion {
		ns := flagValue("hostprocess-namespace")
		if ns == "" {
			ns = namespace()
		}
		q := podQuestion{Namespace: ns, Node: cfg.Node, What: []string{
			"What: a pod with hostProcess: true that runs as NT AUTHORITY\\SYSTEM on the node, with the host's network, image " +
				flagValue("hostprocess-image") + "; it runs the read-only sweep through pods/exec and is deleted after it."}}
		if a.linux.nodes {
			q.What = append(q.What, "A Linux worker gets a privileged pod that nsenters the host instead, image "+flagValue("linux-pod-image")+".")
		}
		var why string
		switch {
		case transport.Kind(a.transport) == transport.HostProcess:
			why = "--transport hostprocess asks for it"
		case cfg.Host == "":
			why = "the node has no address to reach it over WinRM or SSH"
		case cfg.Password == "" && cfg.KeyFile == "" && !cfg.UseAgent:
			why = "no node credentials: no password (" + a.passwordEnv + ", --password-file, --password-secret), SSH key or ssh-agent configured"
		default:
			why = "WinRM and SSH did not answer with the credentials given"
		}
		q.Why = []string{"Why: " + why + "."}
		return q
	}
}

// startTimeoutFor keeps the pod's start time limit inside the node's: when both were
// the same, the node's deadline ended the wait first and the user read "context
// deadline exceeded" instead of the pod's real state (ImagePullBackOff, a PodSecurity
// refusal). Unset, it becomes three quarters of --timeout; set, it must be shorter.
func startTimeoutFor(f *pflag.Flag, timeout time.Duration, def time.Duration) error {
	if f == nil {
		return nil
	}
	d, err := time.ParseDuration(f.Value.String())
	if err != nil || d < timeout {
		return nil
	}
	if d == def {
		return f.Value.Set((timeout * 3 / 4).String())
	}
	return usageErr("--hostprocess-start-timeout %s: want less than --timeout %s, so that the pod's own state (an image pull, a refusal) is what the run reports", d, timeout)
}

// askOnScreen is the gate's question as the screen's confirm: send delivers it to the
// program; done closes when the program has ended (the question then reads as declined).
func askOnScreen(ctx context.Context, send func(title string, lines []string, reply chan<- bool), done <-chan struct{}) func(q podQuestion) bool {
	return func(q podQuestion) bool {
		reply := make(chan bool, 1)
		send(q.Title(), q.Lines(), reply)
		select {
		case ok := <-reply:
			return ok
		case <-done:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
