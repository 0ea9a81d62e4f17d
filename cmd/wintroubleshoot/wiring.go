package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/kube"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// kubeActions adapts the cluster client to the fix runner: drain waits a bounded time for
// evicted pods, as kubectl drain does.
type kubeActions struct {
	*kube.Client
}

func (k kubeActions) Drain(ctx context.Context, node string) ([]string, error) {
	res, err := k.Client.Drain(ctx, node, kube.DrainOptions{Timeout: 2 * time.Minute})
	return res.Evicted, err
}

// extraCommands are the subcommands beyond analyze and version.
func extraCommands(_ context.Context, streams genericiooptions.IOStreams, live *liveOptions) []*cobra.Command {
	return []*cobra.Command{
		newDemoCmd(streams),
		newFixCmd(streams, live),
		newFakenodeCmd(streams),
		newSnapshotCmd(streams, live),
		newRedactCmd(streams),
		newDiffCmd(streams),
		newProbesCmd(streams),
	}
}

// newProbesCmd lists the probes: what each judges and the evidence it reads, so a support
// engineer knows which files to ask a customer for.
func newProbesCmd(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "probes",
		Short:   "List the probes, what each judges and the evidence it reads",
		Example: "  wintroubleshoot probes",
		Args:    cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROBE\tJUDGES\tREADS")
			for _, p := range probes.Default().Probes() {
				var reads []string
				for _, n := range p.Needs() {
					if collectors.IsNodeFile(n) {
						n = collectors.NodeFile("<node>", n)
					}
					reads = append(reads, n)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", p.ID(), p.Title(), strings.Join(reads, ", "))
			}
			w.Flush()
		},
	}
}
