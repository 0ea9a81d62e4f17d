package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/local"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// addAgent adds watch mode to the root command: the agent subcommand and --from-agents.
func addAgent(root *cobra.Command, streams genericiooptions.IOStreams, live *liveOptions) {
	root.AddCommand(newAgentCmd(streams, live))
	addFromAgents(root, streams, live)
}

type agentOptions struct {
	node, namespace, metrics, from, npd string
	interval                            time.Duration
	jitter                              float64
	once, noPublish                     bool
}

func newAgentCmd(streams genericiooptions.IOStreams, live *liveOptions) *cobra.Command {
	o := agentOptions{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Watch this node: sweep it on an interval and publish conditions, events, metrics and a report (never fixes)",
		Long: strings.TrimSpace(`
The agent runs on the node itself (a HostProcess pod of the DaemonSet in deploy/), sweeps
it locally every --interval (give or take --jitter), judges it with the same probes as a
live run and never runs a fix. Each sweep sets the node's conditions WindowsNetworkProblem,
WindowsServiceProblem and WindowsHostProblem (reason: the failing probe), records an Event
on the node when a probe starts or stops failing, writes the node's report (ConfigMap
<node> in --namespace) and serves Prometheus metrics on --metrics-address.
'wintroubleshoot --report --from-agents' reads every agent's report in one request.

In the DaemonSet it runs as 'wintroubleshoot agent' (NODE_NAME from the downward API).
'wintroubleshoot agent --once --no-publish --from FOLDER --node NAME' judges an evidence
folder once and prints it, publishing nothing.`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), streams, live) },
	}
	f := cmd.Flags()
	f.StringVar(&o.node, "node", os.Getenv("NODE_NAME"), "this node's name (default $NODE_NAME)")
	f.StringVar(&o.namespace, "namespace", agent.Namespace, "namespace of the reports and events")
	f.StringVar(&o.metrics, "metrics-address", ":9469", "address to serve /metrics on (\"\": none)")
	f.StringVar(&o.from, "from", "", "judge this evidence folder, re-read every sweep, instead of sweeping the node")
	f.DurationVar(&o.interval, "interval", agent.DefaultInterval, "time between sweeps")
	f.Float64Var(&o.jitter, "jitter", agent.DefaultJitter, "fraction of --interval each wait varies by")
	f.BoolVar(&o.once, "once", false, "sweep once, print the findings and exit")
	f.BoolVar(&o.noPublish, "no-publish", false, "write nothing to the API server (with --once: a dry run)")
	f.StringVar(&o.npd, "npd-plugin", "", "run once as a node-problem-detector custom plugin for one condition kind (network, service or host): "+
		"sweep what its probes read, print one line, exit 0 OK, 1 NonOK, 2 Unknown; publishes nothing")
	return cmd
}

func (o *agentOptions) run(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions) error {
	if o.node == "" {
		return usageErr("agent: --node (or $NODE_NAME) is required: the name of the node this agent watches")
	}
	if o.interval < 10*time.Second {
		return usageErr("agent: --interval %s is too short (at least 10s)", o.interval)
	}
	red, err := newRunRedactor(live.out.redactRules)
	if err != nil {
		return err
	}
	var probesOf []probes.Probe // nil: every probe
	if o.npd != "" {
		kind, err := agent.ParseKind(o.npd)
		if err != nil {
			return usageErr("agent --npd-plugin: %v", err)
		}
		probesOf = agent.ProbesOf(probes.Default(), kind)
	}
	a := &agent.Agent{Node: o.node, Registry: probes.Default(), Interval: o.interval, Jitter: o.jitter, Version: version,
		Log: func(s string) { fmt.Fprintln(streams.ErrOut, safeLine(s)) }}
	if !o.noPublish && o.npd == "" {
		client, err := kube.New(live.kube)
		if err != nil {
			return usageErr("agent: %v", err)
		}
		a.Publisher = &agent.Publisher{Client: client.Interface(), Node: o.node, Namespace: o.namespace}
	}
	if o.from != "" {
		a.Source = agent.FolderSource{Dir: o.from, Wrap: func(f fs.FS) fs.FS { return red.FS(f) }}
	} else {
		tree := evidence.NewTree()
		tree.SetIntake(red.Intake) // the sweep is redacted as it arrives, as a live run's is
		eng := &engine.Engine{Registry: a.Registry, Tree: tree, Timeout: 2 * time.Minute, Scripts: new(sweep.Plans),
			Dial: func(context.Context, transport.Config) (transport.Transport, error) { return local.New() }}
		src := agent.EngineSource{Engine: eng, Probes: probesOf,
			Target: engine.Target{Name: o.node, Transport: transport.Config{Kind: transport.Local}, OS: evidence.Windows}}
		if a.Publisher != nil {
			src.Cluster = agent.NodeAndPods(a.Publisher.Client, o.node)
		}
		a.Source = src
	}
	if o.npd != "" {
		return runPlugin(ctx, streams, a, o.npd)
	}
	if o.once {
		return o.printOnce(ctx, streams, a, live, red)
	}
	if err := agent.LowerPriority(); err != nil {
		a.Log(err.Error())
	}
	if o.metrics != "" {
		a.Metrics = agent.NewMetrics()
		if err := serveMetrics(ctx, o.metrics, a.Metrics.Handler()); err != nil {
			return err
		}
	}
	return a.Run(ctx)
}

// printOnce is one sweep, published unless --no-publish, printed as a report.
func (o *agentOptions) printOnce(ctx context.Context, streams genericiooptions.IOStreams, a *agent.Agent, live *liveOptions, red *redact.Redactor) error {
	format, failOn, err := live.out.parse()
	if err != nil {
		return err
	}
	r, perr := a.Step(ctx)
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: "agent on " + o.node, Time: r.SweptAt}
	err = printFindings(ctx, streams, format, failOn, meta, r.Findings, nil, live.out, red)
	if perr != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("agent: publishing: %w", perr)}
	}
	return err
}

// runPlugin is one sweep answered in node-problem-detector's custom plugin protocol.
func runPlugin(ctx context.Context, streams genericiooptions.IOStreams, a *agent.Agent, kindName string) error {
	kind, _ := agent.ParseKind(kindName) // parsed by the caller
	code, msg := agent.PluginResult(a.SweepOnce(ctx), kind)
	fmt.Fprintln(streams.Out, safeLine(msg))
	if code != agent.PluginOK {
		return &exitError{code: code}
	}
	return nil
}

// serveMetrics listens now (so a taken port is an error at start, not in the log) and
// serves until ctx ends.
func serveMetrics(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErr("agent: --metrics-address %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, safeLine("agent: metrics: "+err.Error()))
		}
	}()
	return nil
}
