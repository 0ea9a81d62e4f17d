package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

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
		newCompareCmd(streams, live),
		newImportCmd(streams),
	}
}

// newProbesCmd lists the probes: what each judges and the evidence it reads, so a support
// engineer knows which files to ask a customer for. -o markdown prints the table README.md
// carries.
func newProbesCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "probes",
		Short:   "List the probes, what each judges and the evidence it reads",
		Example: "  wintroubleshoot probes\n  wintroubleshoot probes -o markdown",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg := probes.Default()
			switch output {
			case "markdown":
				_, err := io.WriteString(streams.Out, reg.Markdown())
				return err
			case "text":
			default:
				return fmt.Errorf("unknown output %q for probes (want text or markdown)", output)
			}
			w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROBE\tJUDGES\tLAYOUTS\tREADS")
			for _, p := range reg.Probes() {
				layouts := strings.Join(p.Spec().Layouts, ", ")
				if layouts == "" {
					layouts = "(not declared)"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.ID(), p.Title(), layouts, strings.Join(p.ReadPaths("<node>"), ", "))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or markdown")
	return cmd
}
