package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// liveOptions are the root command's flags: a live run over the cluster's Windows nodes.
type liveOptions struct {
	// rawEvidence keeps the evidence as collected (snapshot --no-redact); intake, when
	// set, is the redactor evidence enters through (a snapshot's own, which its
	// manifest counts), else the run's rules.
	rawEvidence bool
	intake      *redact.Redactor
	kube        *genericclioptions.ConfigFlags
	access      nodeAccess
	out         outputOptions
	report      bool
	from        string
	// noAudit (--no-audit, on the screen and fix) runs fixes without an audit log.
	noAudit bool
	// formatAsked: -o was given, so the user wants a report, not the screen
	// (`wintroubleshoot -o json > file`).
	formatAsked bool
}

func (o *liveOptions) addFlags(cmd *cobra.Command) {
	o.access.addFlags(cmd)
	o.out.addFlags(cmd)
	cmd.Flags().BoolVar(&o.report, "report", false, "print findings and exit instead of opening the interactive screen (never runs fixes)")
	cmd.Flags().BoolVar(&o.noAudit, "no-audit", false, "the screen's fixes: run them even when the audit log cannot be written (nothing records them; prints a warning)")
	cmd.Flags().StringVar(&o.from, "from", "", "with --report: judge evidence in this folder or bundle instead of a live cluster")
}

// validate finds bad flags before anything connects, as kubectl's Validate does: the
// screen, the report and --from all check them the same way.
func (o *liveOptions) validate() error {
	if o.from != "" && !o.report {
		return usageErr("--from goes with --report (or use: wintroubleshoot analyze %s)", o.from)
	}
	if _, _, err := o.out.parse(); err != nil {
		return err
	}
	if err := o.kubeconfigEnvError(); err != nil {
		return err
	}
	_, _, err := o.access.check()
	return err
}

// run is the root command once validated: --from, the screen, or the report.
func (o *liveOptions) run(ctx context.Context, streams genericiooptions.IOStreams) error {
	if o.from != "" {
		return analyzePath(ctx, streams, o.from, nil, o.out)
	}
	if !o.report && !o.formatAsked {
		// The screen, only on a terminal; an output format asked for is a report.
		if err := screenTerminal(streams); err != nil {
			return err
		}
		return runInteractive(ctx, streams, o)
	}
	format, failOn, err := o.out.parse()
	if err != nil {
		return err
	}
	red, err := newRunRedactor(o.out.redactRules)
	if err != nil {
		return err
	}
	sess, err := o.connect(ctx, streams)
	if err != nil {
		return err
	}
	addSecrets(red, sess.secrets, streams.ErrOut)
	api := sess.api(nil)
	progress := newProgress(streams.ErrOut, len(api.Targets))
	var reached atomic.Int64
	findings := api.Probe(ctx, func(ev engine.Event) {
		if ev.Kind == engine.NodeCollected && ev.Err == nil {
			reached.Add(1)
		}
		progress.event(ev)
	})
	progress.done()
	// An interrupt makes every node's sweep fail: that is not the nodes being
	// unreachable, and a report saying so would be wrong.
	if ctx.Err() != nil {
		return interrupted()
	}
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: api.Source, Cluster: api.Cluster, Context: api.Context,
		Reached: o.access.reachedMeta(api.Engine.Reached)}
	err = printFindings(ctx, streams, format, failOn, meta, findings, api.Read, o.out, red)
	if len(api.Targets) > 0 && reached.Load() == 0 && !isUsage(err) {
		// No node answered: what the cluster says about them is not a judgement of
		// the nodes, so the run is "nothing could be judged", whatever else it found.
		return &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("none of the %d nodes could be reached", len(api.Targets))}
	}
	return err
}

// isUsage says whether err ends the run with exit 2.
func isUsage(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == report.ExitUsage
}

// explicitCluster says whether the user named a cluster (flag or $KUBECONFIG).
func (o *liveOptions) explicitCluster() bool {
	set := func(p *string) bool { return p != nil && *p != "" }
	return set(o.kube.KubeConfig) || set(o.kube.Context) || set(o.kube.APIServer) || os.Getenv("KUBECONFIG") != ""
}

// session is a connected live run: cluster evidence collected, targets resolved. It
// keeps the cluster client (for fixes and secrets); api gives the engine Session that
// every front end runs on.
type session struct {
	engine                   *engine.Engine
	targets                  []engine.Target
	client                   *kube.Client
	source, cluster, context string
	// secrets are the credentials the run uses (the node password, the kubeconfig's
	// token or password): every output's redactor replaces them (addSecrets).
	secrets []string
	// gate asks before the first HostProcess pod (nil without a cluster).
	gate *podGate
}

// api is the session as the engine's front-end API, with fx as its fix runner (nil:
// no fixes, as for --report and snapshot).
func (s *session) api(fx *engine.Fixer) *engine.Session {
	return &engine.Session{Engine: s.engine, Targets: s.targets, Fixer: fx,
		Source: s.source, Cluster: s.cluster, Context: s.context}
}

// connect discovers the Windows nodes, collects cluster evidence and resolves how to
// reach each node (engine.ResolveTargets). With --node lists and no reachable cluster,
// it probes those nodes alone.
func (o *liveOptions) connect(ctx context.Context, streams genericiooptions.IOStreams) (*session, error) {
	a := &o.access
	def, overrides, err := a.check()
	if err != nil {
		return nil, err
	}
	var order []string
	for _, ov := range overrides {
		order = append(order, ov.Name)
	}
	tree := evidence.NewTree()
	// Evidence is redacted as it enters the tree (cluster evidence, sweeps, log
	// queries), so every output reads it redacted; only snapshot --no-redact keeps it raw.
	intake := o.intake
	if !o.rawEvidence {
		if intake == nil {
			if intake, err = newRunRedactor(o.out.redactRules); err != nil {
				return nil, err
			}
		}
		tree.SetIntake(intake.Intake)
	}
	client, kerr := kube.NewWithLimit(o.kube, kube.FleetRateLimit(a.concurrency, a.kubeQPS, a.kubeBurst))
	if kerr != nil && o.explicitCluster() {
		// A cluster named but not loadable (a mistyped --context, a malformed
		// --kubeconfig) is bad input: probing the --node list alone would hide it.
		return nil, usageErr("%v", kerr)
	}
	opts := engine.ConnectOptions{Registry: probes.Default(), Transports: a.transports(), Warn: streams.ErrOut,
		Concurrency: a.concurrency, Timeout: a.timeout, Tree: tree, Discover: a.linux.discovered,
		NodeLogs: kube.NodeLogOptions{Since: a.nodeLogSince, MaxBytes: a.nodeLogMax}}
	if kerr == nil {
		opts.Client = client
	}
	conn := engine.Connect(ctx, opts)
	s := &session{engine: conn.Engine, client: conn.Client, source: conn.Source, cluster: conn.Cluster, context: conn.Context}
	found := conn.Found
	if conn.ClusterErr != nil {
		kerr = &unreachableError{context: conn.Context, server: conn.Cluster, err: conn.ClusterErr}
	}
	if conn.Client != nil {
		s.gate = a.installGate(streams.ErrOut, client.Namespace)
	}
	if kerr != nil {
		if len(overrides) == 0 {
			return nil, &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("%w\n(to probe nodes without a cluster, name them: --node NAME=HOST)", kerr)}
		}
		fmt.Fprintln(streams.ErrOut, safeLine(fmt.Sprintf("warning: no cluster evidence, probing the --node list only: %v", kerr)))
		s.source = "nodes " + strings.Join(order, ", ")
	}
	if len(found) == 0 && kerr == nil && len(overrides) == 0 {
		what := "Windows nodes (label kubernetes.io/os=windows)"
		if a.linux.nodes {
			what = "nodes at all"
		}
		return nil, &exitError{code: report.ExitNothingJudged, err: fmt.Errorf("the cluster %s has no %s", s.cluster, what)}
	}
	var secret secretFunc
	if client != nil || a.secretKubeconfig != "" {
		secret = o.secretReader(client)
	}
	pw, err := a.password(ctx, streams, secret)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if def == transport.Auto && s.client == nil && pw == "" && a.transports().NeedsPassword(transport.SSH) {
		// No cluster for a HostProcess pod and no credentials for WinRM or SSH: nothing to try.
		return nil, usageErr("no node password (set %s, or pass --password-file, --password-secret, --password-prompt or --ssh-key); without a cluster, --transport auto can only use WinRM or SSH", a.passwordEnv)
	}
	targets, warnings := engine.ResolveTargets(found, overrides, def, func(kind transport.Kind, host string, port int) transport.Config {
		cfg := a.config(kind, host, port)
		cfg.Password = pw
		return cfg
	})
	for _, w := range warnings {
		fmt.Fprintln(streams.ErrOut, safeLine(fmt.Sprintf("warning: %v", w)))
	}
	a.linux.configure(targets, a.transports())
	s.targets = targets
	sweep.SizeGCForFleet(len(targets), os.Getenv)
	s.secrets = append([]string{pw}, kubeSecrets(o.kube)...)
	if intake != nil {
		addSecrets(intake, s.secrets, io.Discard) // the run's own credentials, in every sweep from now on
	}
	return s, nil
}

// secretReader reads --password-secret from the cluster, or from the cluster named by
// --password-secret-kubeconfig (the Anthos admin cluster).
func (o *liveOptions) secretReader(client *kube.Client) secretFunc {
	return func(ctx context.Context, ns, name, key string) ([]byte, error) {
		c := client
		if o.access.secretKubeconfig != "" {
			flags := genericclioptions.NewConfigFlags(true)
			flags.KubeConfig = &o.access.secretKubeconfig
			var err error
			if c, err = kube.New(flags); err != nil {
				return nil, err
			}
		}
		return c.Secret(ctx, ns, name, key)
	}
}

// progress prints per-node progress on stderr when it is a terminal.
type progress struct {
	w               *os.File
	total, finished int
	on              bool
}

func newProgress(w any, total int) *progress {
	f, ok := w.(*os.File)
	return &progress{w: f, total: total, on: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progress) event(ev engine.Event) {
	if !p.on {
		return
	}
	switch ev.Kind {
	case engine.NodeCollected:
		status := "collected"
		if ev.Err != nil {
			status = "unreachable"
		}
		p.finished++
		fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %s %s in %s", p.finished, p.total, ev.Node, status, ev.Elapsed.Round(1e6))
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
