package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// addFromAgents adds --from-agents (and --agents-namespace) to the root command: with
// --report, the findings come from the agents' reports instead of a sweep.
func addFromAgents(root *cobra.Command, streams genericiooptions.IOStreams, live *liveOptions) {
	var from bool
	ns := agent.Namespace
	root.Flags().BoolVar(&from, "from-agents", false, "with --report: read every node agent's latest report (one request) instead of sweeping")
	root.Flags().StringVar(&ns, "agents-namespace", agent.Namespace, "with --from-agents: the namespace the agents write their reports to")
	sweep := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if !from {
			return sweep(cmd, args)
		}
		if !live.report || live.from != "" {
			return usageErr("--from-agents goes with --report, and not with --from")
		}
		return reportFromAgents(cmd.Context(), streams, live, ns)
	}
}

// reportFromAgents prints the fleet as its agents last saw it: the Windows nodes from one
// list, their reports from another, a missing or stale agent shown as an AGENT finding.
func reportFromAgents(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions, ns string) error {
	format, failOn, err := live.out.parse()
	if err != nil {
		return err
	}
	red, err := newRunRedactor(live.out.redactRules)
	if err != nil {
		return err
	}
	client, err := kube.New(live.kube)
	if err != nil {
		return usageErr("%v", err)
	}
	nodes, err := client.Interface().CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/os=windows"})
	if err != nil {
		return &exitError{code: report.ExitNothingJudged, err: &unreachableError{context: client.Context(), server: client.Server(), err: err}}
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	entries, err := agent.ReadFleet(ctx, client.Interface(), ns, names, time.Now())
	if err != nil {
		return &exitError{code: report.ExitNothingJudged, err: err}
	}
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: "agents' reports in " + client.Context() + "/" + ns,
		Cluster: client.Server(), Context: client.Context()}
	return printFindings(ctx, streams, format, failOn, meta, agent.Findings(entries), nil, live.out, red)
}
