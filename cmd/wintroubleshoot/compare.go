package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// newCompareCmd compares a healthy node with a broken one, as people do by hand (two HNS
// networks against three, a missing route): the evidence that differs, ranked by the
// probes it matters to. It sweeps both nodes of the live cluster, as the root command
// does, or reads evidence already collected, a folder or a bundle.
func newCompareCmd(streams genericiooptions.IOStreams, live *liveOptions) *cobra.Command {
	var from, fromB string
	cmd := &cobra.Command{
		Use:   "compare NODE-A NODE-B [--from EVIDENCE [--from-b EVIDENCE]]",
		Short: "List the evidence that differs between two nodes, ranked by the probes it matters to",
		Long: strings.TrimSpace(`
Without --from, connects as the root command does (kubeconfig, then WinRM or SSH to each
node, the same --node and password flags), sweeps NODE-A and NODE-B now and compares what
they answered. With --from, reads NODE-A's evidence from that folder or snapshot bundle
and NODE-B's from --from-b (default: --from too).

Lists every evidence file that differs, the files read by a probe that judges the two
nodes differently first. Node names inside files are made equal before comparing, so two
nodes of one pool compare on what matters. Exit codes: 0 no differences, 1 differences,
2 bad input, 3 a node could not be reached, 130 interrupted.`),
		Example: strings.TrimSpace(`
  # two nodes of one pool, swept now: what the broken one has that the healthy one has not
  WTS_PASSWORD=... wintroubleshoot compare win-1 win-2 --node-user Administrator

  # from evidence already collected: a healthy node's snapshot against the broken one's
  wintroubleshoot compare win-1 win-1 --from healthy.tar.gz --from-b before.tar.gz`),
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" && fromB != "" {
				return usageErr("--from-b %s goes with --from (NODE-A's evidence); without either, both nodes are swept live", fromB)
			}
			red, err := newRunRedactor("")
			if err != nil {
				return err
			}
			var diffs []engine.EvidenceDiff
			if from == "" {
				diffs, err = compareLive(cmd.Context(), streams, live, args[0], args[1], red)
			} else {
				diffs, err = compareEvidence(cmd.Context(), from, fromB, args[0], args[1])
			}
			if err != nil {
				return err
			}
			// The first differing lines are evidence: they leave through the redactor.
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
	cmd.Flags().StringVar(&from, "from", "", "folder or bundle with NODE-A's evidence (and NODE-B's, without --from-b); without it, both are swept live")
	cmd.Flags().StringVar(&fromB, "from-b", "", "folder or bundle with NODE-B's evidence, when it is another one")
	live.access.addFlags(cmd)
	// NODE-A and NODE-B complete from the evidence each is read from, or the cluster.
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		src := from
		if len(args) == 1 && fromB != "" {
			src = fromB
		}
		switch {
		case len(args) >= 2:
			return nil, cobra.ShellCompDirectiveNoFileComp
		case src == "":
			return clusterNodes(live.kube, "")(cmd, args, "")
		}
		ev, _, closer, err := bundle.OpenEvidence(cmd.Context(), src)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer closer.Close()
		return ev.Nodes(), cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

// compareLive connects as the root command does and sweeps the two nodes through the
// engine session. The run's credentials join the output's redactor.
func compareLive(ctx context.Context, streams genericiooptions.IOStreams, live *liveOptions, a, b string, red *redact.Redactor) ([]engine.EvidenceDiff, error) {
	sess, err := live.connect(ctx, streams)
	if err != nil {
		return nil, err
	}
	addSecrets(red, sess.secrets, streams.ErrOut)
	api := sess.api(nil)
	for _, n := range []string{a, b} {
		if _, ok := api.Target(n); !ok {
			var known []string
			for _, t := range api.Targets {
				known = append(known, t.Name)
			}
			return nil, usageErr("%s has no Windows node %s (nodes: %s)", api.Source, n, strings.Join(known, ", "))
		}
	}
	progress := newProgress(streams.ErrOut, 2)
	diffs, err := api.Compare(ctx, a, b, progress.event)
	progress.done()
	var unreachable *engine.UnreachableError
	switch {
	case ctx.Err() != nil:
		return nil, interrupted()
	case errors.As(err, &unreachable):
		return nil, &exitError{code: report.ExitNothingJudged, err: err}
	case err != nil:
		return nil, err
	}
	return diffs, nil
}

// compareEvidence reads each node from a folder or bundle.
func compareEvidence(ctx context.Context, from, fromB, a, b string) ([]engine.EvidenceDiff, error) {
	if fromB == "" {
		fromB = from
	}
	evA, _, closeA, err := bundle.OpenEvidence(ctx, from)
	if err != nil {
		return nil, &exitError{code: report.ExitUsage, err: err}
	}
	defer closeA.Close()
	evB, _, closeB, err := bundle.OpenEvidence(ctx, fromB)
	if err != nil {
		return nil, &exitError{code: report.ExitUsage, err: err}
	}
	defer closeB.Close()
	for _, c := range []struct {
		node string
		has  []string
		src  string
	}{{a, evA.Nodes(), from}, {b, evB.Nodes(), fromB}} {
		if !containsStr(c.has, c.node) {
			return nil, usageErr("%s has no evidence for node %s (nodes: %s)", c.src, c.node, strings.Join(c.has, ", "))
		}
	}
	return engine.Compare(probes.Default(), evA, a, evB, b), nil
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
