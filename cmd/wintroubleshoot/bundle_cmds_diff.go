package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

func newRedactCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var rules string
	cmd := &cobra.Command{
		Use:   "redact IN.tar.gz OUT.tar.gz",
		Short: "Redact a bundle again: with extra rules, or one written with --no-redact",
		Long: strings.TrimSpace(`
Verifies IN, redacts every file with the built-in rules plus --redact-rules, and writes
OUT (which may be IN) with the manifest's redaction summary updated.`),
		Example: strings.TrimSpace(`
  wintroubleshoot redact snap.tar.gz snap-shared.tar.gz --redact-rules our-hostnames.yaml`),
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := redactorFor(rules, false)
			if err != nil {
				return err
			}
			m, err := bundle.Redact(cmd.Context(), args[0], args[1], r)
			if err != nil {
				return &exitError{code: report.ExitUsage, err: err}
			}
			added := 0
			for _, c := range r.Counts() {
				added += c.Count
			}
			fmt.Fprintf(streams.Out, "wrote %s: %d values redacted now, %d in all\n", args[1], added, m.RedactedValues())
			return nil
		},
	}
	cmd.Flags().StringVar(&rules, "redact-rules", "", "YAML or JSON file of extra redaction rules: a list of {name, regex, group, keywords}")
	return cmd
}

func newDiffCmd(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "diff BEFORE.tar.gz AFTER.tar.gz",
		Short: "Show what changed between two snapshots: findings, then evidence files",
		Long: strings.TrimSpace(`
Compares findings by node and probe (status changes, new, gone) and lists the evidence
files added (+), removed (-) and changed (~). A bundle without findings.json is judged
from its evidence. Exit codes: 0 no differences, 1 differences, 2 a bundle is unreadable.`),
		Example: strings.TrimSpace(`
  # did the fix change anything?
  wintroubleshoot snapshot before.tar.gz
  wintroubleshoot fix NET-ROUTES --node win-1 --yes
  wintroubleshoot snapshot after.tar.gz
  wintroubleshoot diff before.tar.gz after.tar.gz`),
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var bs [2]*bundle.Bundle
			var fs [2][]probes.Finding
			for i, p := range args {
				b, err := bundle.OpenContext(cmd.Context(), p)
				if err != nil {
					return &exitError{code: report.ExitUsage, err: err}
				}
				defer b.Close()
				if fs[i], err = bundleFindings(b); err != nil {
					return &exitError{code: report.ExitUsage, err: fmt.Errorf("%s: %w", p, err)}
				}
				bs[i] = b
			}
			lines := diffFindings(fs[0], fs[1])
			ev := bundle.Diff(bs[0], bs[1])
			printRootCauseChanges(streams.Out, fs[0], fs[1])
			printDiff(streams.Out, lines, ev)
			if len(lines) > 0 || !ev.Empty() {
				return &exitError{code: report.ExitFindings}
			}
			return nil
		},
	}
}

// bundleFindings reads findings.json, or judges the evidence when there is none.
func bundleFindings(b *bundle.Bundle) ([]probes.Finding, error) {
	f, err := b.FS().Open(evidence.BundleFindings)
	if errors.Is(err, fs.ErrNotExist) {
		return engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: b.FS()}, nil)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, findings, err := report.Read(f)
	return findings, err
}

// diffFindings compares findings per node and probe: the worst status, then the
// summaries. It returns one printable line per change, sorted.
func diffFindings(before, after []probes.Finding) []string {
	group := func(fs []probes.Finding) map[[2]string][]probes.Finding {
		m := map[[2]string][]probes.Finding{}
		for _, f := range report.Sort(fs) {
			k := [2]string{f.Node, f.Probe}
			m[k] = append(m[k], f)
		}
		return m
	}
	a, b := group(before), group(after)
	keys := map[[2]string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		fa, fb := a[k], b[k]
		where := fmt.Sprintf("%s %s", report.NodeLabel(k[0]), k[1])
		switch {
		case len(fa) == 0:
			out = append(out, fmt.Sprintf("%s: new, %s: %s", where, fb[0].Status, fb[0].Summary))
		case len(fb) == 0:
			out = append(out, fmt.Sprintf("%s: gone, was %s: %s", where, fa[0].Status, fa[0].Summary))
		case fa[0].Status != fb[0].Status:
			out = append(out, fmt.Sprintf("%s: %s -> %s: %s", where, fa[0].Status, fb[0].Status, fb[0].Summary))
		case summaries(fa) != summaries(fb):
			out = append(out, fmt.Sprintf("%s: still %s, changed: %s", where, fb[0].Status, fb[0].Summary))
		}
	}
	sort.Strings(out)
	return out
}

func summaries(fs []probes.Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Status.String()+" "+f.Summary)
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}

func printDiff(w io.Writer, findings []string, ev bundle.DiffResult) {
	if len(findings) == 0 && ev.Empty() {
		fmt.Fprintln(w, "no differences")
		return
	}
	fmt.Fprintf(w, "findings: %d changed\n", len(findings))
	for _, l := range findings {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "evidence: %d added, %d removed, %d changed\n", len(ev.Added), len(ev.Removed), len(ev.Changed))
	for _, g := range []struct {
		mark  string
		paths []string
	}{{"+", ev.Added}, {"-", ev.Removed}, {"~", ev.Changed}} {
		for _, p := range g.paths {
			fmt.Fprintf(w, "  %s %s\n", g.mark, p)
		}
	}
}
