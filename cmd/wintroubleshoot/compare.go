package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes/report"
)

// newCompareCmd compares a healthy node with a broken one, as people do by hand (two HNS
// networks against three, a missing route): the evidence that differs, ranked by the
// probes it matters to. It reads evidence already collected, a folder or a bundle.
func newCompareCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var from, fromB string
	cmd := &cobra.Command{
		Use:   "compare NODE-A NODE-B --from EVIDENCE [--from-b EVIDENCE]",
		Short: "List the evidence that differs between two nodes, ranked by the probes it matters to",
		Long: strings.TrimSpace(`
Reads NODE-A's evidence from --from and NODE-B's from --from-b (default: --from too), a
folder or a snapshot bundle each, and lists every evidence file that differs, the files
read by a probe that judges the two nodes differently first. Node names inside files are
made equal before comparing. Exit codes: 0 no differences, 1 differences, 2 bad input.`),
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageErr("--from: the folder or bundle holding the evidence")
			}
			if fromB == "" {
				fromB = from
			}
			evA, _, closeA, err := bundle.OpenEvidence(cmd.Context(), from)
			if err != nil {
				return &exitError{code: report.ExitUsage, err: err}
			}
			defer closeA.Close()
			evB, _, closeB, err := bundle.OpenEvidence(cmd.Context(), fromB)
			if err != nil {
				return &exitError{code: report.ExitUsage, err: err}
			}
			defer closeB.Close()
			for _, c := range []struct {
				node string
				has  []string
				src  string
			}{{args[0], evA.Nodes(), from}, {args[1], evB.Nodes(), fromB}} {
				if !containsStr(c.has, c.node) {
					return &exitError{code: report.ExitUsage, err: fmt.Errorf("%s has no evidence for node %s (nodes: %s)", c.src, c.node, strings.Join(c.has, ", "))}
				}
			}
			diffs := engine.Compare(probes.Default(), evA, args[0], evB, args[1])
			// The first differing lines are evidence: they leave through the redactor.
			red, err := newRunRedactor("")
			if err != nil {
				return err
			}
			w := red.Writer(streams.Out, "compare.txt")
			printCompare(w, args[0], args[1], diffs)
			if err := w.Close(); err != nil {
				return fmt.Errorf("writing the comparison: %w", err)
			}
			if len(diffs) > 0 {
				return &exitError{code: report.ExitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "folder or bundle with NODE-A's evidence (and NODE-B's, without --from-b)")
	cmd.Flags().StringVar(&fromB, "from-b", "", "folder or bundle with NODE-B's evidence, when it is another one")
	return cmd
}

func printCompare(w io.Writer, a, b string, diffs []engine.EvidenceDiff) {
	if len(diffs) == 0 {
		fmt.Fprintf(w, "no evidence differs between %s and %s\n", a, b)
		return
	}
	fmt.Fprintf(w, "%d evidence files differ between A=%s and B=%s, most telling first:\n", len(diffs), a, b)
	for _, d := range diffs {
		fmt.Fprintf(w, "  %s  %s\n", d.Name, d.Lines)
		if len(d.Judged) > 0 {
			fmt.Fprintf(w, "    judged differently by: %s\n", strings.Join(d.Judged, ", "))
		}
		fmt.Fprintf(w, "    read by: %s\n", strings.Join(d.Probes, ", "))
		if d.FirstA != "" || d.FirstB != "" {
			fmt.Fprintf(w, "    A: %s\n    B: %s\n", clip(d.FirstA), clip(d.FirstB))
		}
	}
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
