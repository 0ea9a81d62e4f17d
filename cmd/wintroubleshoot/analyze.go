package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

func newAnalyzeCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var out outputOptions
	var nodes []string
	cmd := &cobra.Command{
		Use:   "analyze DIR|BUNDLE.tar.gz",
		Short: "Judge evidence collected earlier: a folder assembled by hand, or a snapshot bundle",
		Long: strings.TrimSpace(`
Runs the same probes as a live run over evidence already collected. A folder holds
cluster/... (kubectl JSON) and nodes/<node>/... (what each node printed); the table of
paths and the commands that produce them is in fixtures/scenarios/README.md. A bundle is
what 'wintroubleshoot snapshot' writes; its checksums are verified first.`),
		Example: strings.TrimSpace(`
  wintroubleshoot analyze ./case-1234
  wintroubleshoot analyze snapshot.tar.gz -o markdown > ticket.md
  wintroubleshoot analyze ./case-1234 --node win-1 -o json`),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return analyzePath(cmd.Context(), streams, args[0], nodes, out)
		},
	}
	out.addFlags(cmd)
	cmd.Flags().StringSliceVar(&nodes, "node", nil, "judge only these nodes (default: every nodes/<node>/ folder)")
	return cmd
}

// analyzePath judges a folder or bundle and prints the findings. A folder is confined
// to itself (a link out of it, to ~/.kube/config say, is refused) and reads are capped,
// as a bundle's are. An interrupt stops it between nodes and prints nothing.
func analyzePath(ctx context.Context, streams genericiooptions.IOStreams, path string, nodes []string, out outputOptions) error {
	format, failOn, err := out.parse()
	if err != nil {
		return err
	}
	red, err := newRunRedactor(out.redactRules)
	if err != nil {
		return err
	}
	ev, source, closer, fi, err := openEvidence(ctx, streams, red, path, nodes)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return &exitError{code: report.ExitUsage, err: err}
	}
	defer closer.Close()
	// A folder a customer filled with console output instead of JSON: those files are
	// imported in memory, as `wintroubleshoot import` would, before judging.
	fsys, pasted, err := importer.Overlay(ev.FS)
	if err != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("%s: reading pasted evidence: %w", path, err)}
	}
	if pasted != nil {
		ev.FS = fsys
		fmt.Fprintf(streams.ErrOut, "note: %s holds pasted console output; it was imported in memory (`wintroubleshoot import` writes what it read to import.json)\n", path)
	} else if pasted, err = importer.ReadReport(ev.FS); err != nil {
		// A folder `import --out` wrote: its report says what the paste left out.
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("%s: %w", path, err)}
	}
	findings, err := engine.AnalyzeImported(ctx, probes.Default(), ev, pasted, nodes)
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("%s: %w", path, err)}
	}
	fi.explain(findings)
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: source}
	return printFindings(ctx, streams, format, failOn, meta, findings, engine.ReaderOf(ev), out, red)
}

// interrupted is the end of a run stopped by Ctrl-C (or SIGTERM): it says so, writes no
// report, and exits 130 as a shell does for SIGINT.
func interrupted() error {
	return &exitError{code: report.ExitInterrupted, err: errors.New("interrupted: nothing was written")}
}

// printFindings renders findings through the run's redactor and turns them into the
// exit code.
func printFindings(ctx context.Context, streams genericiooptions.IOStreams, format report.Format, failOn probes.Status,
	meta report.Meta, findings []probes.Finding, read engine.EvidenceReader, out outputOptions, red *redact.Redactor) error {
	info, _ := format.Info()
	opt := report.Options{Color: info.Color && colorFor(streams.Out), Verbose: out.verbose, MaxSize: out.maxSize,
		NodeOS: nodeKinds(read, findings)}
	if info.Excerpts {
		opt.Excerpts = engine.Excerpts(read, findings, red)
	}
	if ctx.Err() != nil {
		return interrupted()
	}
	if err := report.WriteRedacted(streams.Out, format, meta, findings, opt, red); err != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("writing the report: %w", err)}
	}
	if code := report.ExitCode(findings, failOn); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
