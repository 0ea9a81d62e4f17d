package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// maxPaste caps what import reads from one file or stdin: a console transcript, not a
// disk image.
const maxPaste = 32 << 20

type importOptions struct {
	out     string
	node    string
	analyze bool
	output  outputOptions
}

func newImportCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import FILE... | -",
		Short: "Turn console output a customer pasted into an evidence folder",
		Long: strings.TrimSpace(`
Reads text pasted from a console (Get-HnsNetwork, Get-HnsEndpoint and Get-HnsPolicyList
list views, Get-Service, sc query/qc, ipconfig, route print, Get-NetRoute,
Get-NetIPAddress, netsh interface ipv4 show, docker images/ps, crictl images,
ctr -n k8s.io images ls, kubectl get/describe nodes, kubectl describe pod, kubelet and
kube-proxy logs; several commands with their prompts in one file, or one output per
file) and writes the evidence folder 'analyze' reads. What shows too little for an
evidence file (hnsdiag, crictl pods and ps, ctr containers, Get-NetAdapter,
Get-NetIPInterface, systeminfo, ver, kubectl get nodes) is parsed into import.json. Each file holds only what the
console showed. import.json says what every block was recognized as, what was parsed,
which fields were not in the paste (and the exact command that collects them) and which
lines were left over.`),
		Example: strings.TrimSpace(`
  wintroubleshoot import ticket-1234.txt --out ./ticket-1234 --node win-1
  wintroubleshoot analyze ./ticket-1234
  wintroubleshoot import ticket-1234.txt --analyze

  # from the clipboard on Windows (- reads stdin)
  #   Get-Clipboard | wintroubleshoot import - --analyze`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), streams, args, o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "d", "", "write the evidence folder here (a new or empty folder)")
	cmd.Flags().StringVar(&o.node, "node", "", "the node the paste came from (default: from the paste, else "+importer.DefaultNode+")")
	cmd.Flags().BoolVar(&o.analyze, "analyze", false, "judge the imported evidence right away, as analyze does")
	o.output.addFlags(cmd)
	return cmd
}

func runImport(ctx context.Context, streams genericiooptions.IOStreams, args []string, o importOptions) error {
	if o.out == "" && !o.analyze {
		return usageErr("import: give --out DIR to write the evidence folder, or --analyze to judge it")
	}
	format, failOn, err := o.output.parse()
	if err != nil {
		return err
	}
	// The summary quotes pasted lines, and the report evidence: both leave redacted.
	red, err := newRunRedactor(o.output.redactRules)
	if err != nil {
		return err
	}
	if done, err := importForeign(ctx, streams, args, o, red); done {
		return err
	}
	var inputs []importer.Input
	for _, a := range args {
		b, err := readPaste(streams.In, a)
		if err != nil {
			return &exitError{code: report.ExitUsage, err: err}
		}
		inputs = append(inputs, importer.Input{Name: a, Data: b})
	}
	res, err := importer.Import(inputs, importer.Options{Node: o.node})
	if err != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("import: %w", err)}
	}
	sw := red.Writer(streams.ErrOut, "import.txt")
	summarize(sw, res)
	if err := sw.Close(); err != nil {
		return fmt.Errorf("writing the import summary: %w", err)
	}
	if o.out != "" {
		if err := res.Write(o.out); err != nil {
			return &exitError{code: report.ExitUsage, err: fmt.Errorf("import: %w", err)}
		}
		fmt.Fprintf(streams.ErrOut, "wrote %s (see %s)\n", o.out, path.Join(o.out, importer.ReportFile))
	}
	if !o.analyze {
		return nil
	}
	// The same path as `analyze DIR` on the folder --out writes: the same findings, the
	// same hints, and Ctrl-C stops it between nodes.
	ev := evidence.Evidence{FS: res.FS()}
	findings, err := engine.AnalyzeImported(ctx, probes.Default(), ev, &res.Report, nil)
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return &exitError{code: report.ExitUsage, err: fmt.Errorf("analyzing the imported evidence: %w", err)}
	}
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: "pasted " + strings.Join(args, ", ")}
	return printFindings(ctx, streams, format, failOn, meta, findings, engine.ReaderOf(ev), o.output, red)
}

// readPaste reads a pasted file, or stdin for "-".
func readPaste(stdin io.Reader, name string) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("opening the paste: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxPaste+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(b) > maxPaste {
		return nil, fmt.Errorf("%s is larger than %d MiB: import reads console transcripts", name, maxPaste>>20)
	}
	return b, nil
}

// summarize tells the engineer on stderr what became of each block.
func summarize(w io.Writer, res importer.Result) {
	fmt.Fprintf(w, "node %s (%s)\n", res.Report.Node, res.Report.NodeFrom)
	for _, b := range res.Report.Blocks {
		what := b.Recognized
		switch {
		case b.Evidence != "":
			what += " -> " + b.Evidence
			if len(b.Missing) > 0 {
				what += fmt.Sprintf(" (%d fields not in the paste)", len(b.Missing))
			}
		case b.Note != "":
			what += ": " + b.Note
		}
		fmt.Fprintf(w, "  %s lines %s: %s\n", b.Source, b.Lines, what)
	}
}
