package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"

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
	var files bool
	cmd := &cobra.Command{
		Use:     "probes",
		Short:   "List the probes, what each judges and the evidence it reads",
		Example: "  wintroubleshoot probes\n  wintroubleshoot probes -o markdown\n  wintroubleshoot probes --evidence",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg := probes.Default()
			if files {
				return printEvidenceContract(streams.Out)
			}
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
	cmd.Flags().BoolVar(&files, "evidence", false, "list every evidence file with the command that produces it by hand and the format it is read in")
	return cmd
}

// printEvidenceContract prints each evidence file, the command that produces it and the
// format its decoder accepts: what to ask a customer to run when a file is missing.
func printEvidenceContract(w io.Writer) error {
	for _, k := range evidence.All() {
		m := k.Meta()
		if _, err := fmt.Fprintf(w, "%s\n  command: %s\n  format:  %s\n", k.Path("<node>"), m.Command, m.Format); err != nil {
			return err
		}
	}
	return nil
}
