package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/foreign"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// foreignInput is what analyze read when it was given another collector's bundle (nil
// for our own folder or snapshot).
type foreignInput struct{ res *foreign.Result }

// openEvidence opens analyze's input: our folder or bundle, or another collector's
// (collectlogs.ps1, AKS, EKS, kubectl cluster-info dump, a case folder of several). A
// single --node names the node of a bundle that does not say which it is. What was
// recognized, and what not, goes to stderr through the redactor.
func openEvidence(ctx context.Context, streams genericiooptions.IOStreams, red *redact.Redactor, p string, nodes []string) (evidence.Evidence, string, io.Closer, *foreignInput, error) {
	opt := foreign.Options{Redact: red} // intake by the run's rules, --redact-rules too
	if len(nodes) == 1 {
		opt.Node = nodes[0]
	}
	ev, source, closer, res, err := foreign.OpenEvidence(ctx, p, opt)
	if err != nil || res == nil {
		return ev, source, closer, nil, err
	}
	w := red.Writer(streams.ErrOut, "foreign.txt")
	describeForeign(w, res)
	if err := w.Close(); err != nil {
		return ev, source, closer, nil, fmt.Errorf("writing what was recognized: %w", err)
	}
	return ev, source, closer, &foreignInput{res}, nil
}

// describeForeign says, per bundle, the collector and version recognized, the node, and
// the files it did not read.
func describeForeign(w io.Writer, res *foreign.Result) {
	for _, b := range res.Bundles {
		fmt.Fprintf(w, "recognized %s, %s, in %s\n", b.Collector, b.Version, b.Source)
		if b.Node != "" {
			fmt.Fprintf(w, "  node %s (%s)\n", b.Node, b.NodeFrom)
		}
		fmt.Fprintf(w, "  read %d files into %d evidence files; %d files known but not read\n", len(b.Read), len(b.Evidence), len(b.Known))
		if len(b.Unknown) > 0 {
			fmt.Fprintf(w, "  not recognized (%d): %s\n", len(b.Unknown), strings.Join(b.Unknown, ", "))
		}
		for _, n := range b.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	for _, ig := range res.Ignored {
		fmt.Fprintf(w, "not recognized: %s\n", ig)
	}
}

// explain adds to each skipped finding which evidence the bundle did not hold and what
// to collect for it, so the report says what could not be judged from that bundle.
func (fi *foreignInput) explain(findings []probes.Finding) {
	if fi == nil {
		return
	}
	for i, f := range findings {
		if f.Status != probes.Skip {
			continue
		}
		for _, p := range f.Evidence {
			if why, ok := fi.res.Gap(p); ok {
				findings[i].Details = append(findings[i].Details, p+": "+why)
			}
		}
	}
}

// isForeignInput: import reads these as collectors' bundles, not as pasted text: a
// folder, or a zip, tar or gzip file.
func isForeignInput(args []string) bool {
	for _, a := range args {
		if a == "-" {
			return false
		}
		st, err := os.Stat(a)
		if err != nil {
			return false
		}
		if st.IsDir() {
			continue
		}
		f, err := os.Open(a)
		if err != nil {
			return false
		}
		head := make([]byte, 262)
		n, _ := io.ReadFull(f, head)
		f.Close()
		head = head[:n]
		if !bytes.HasPrefix(head, []byte("PK\x03\x04")) && !bytes.HasPrefix(head, []byte{0x1f, 0x8b}) && !(n >= 262 && string(head[257:262]) == "ustar") {
			return false
		}
	}
	return true
}

// importForeign is import given collectors' bundles: the evidence folder they map to
// (and foreign.json saying what was read), or their judgement. done is false when the
// inputs are pasted text, which import reads as before.
func importForeign(ctx context.Context, streams genericiooptions.IOStreams, args []string, o importOptions, red *redact.Redactor) (done bool, err error) {
	if !isForeignInput(args) {
		return false, nil
	}
	format, failOn, err := o.output.parse()
	if err != nil {
		return true, err
	}
	res, err := foreign.Open(ctx, args, foreign.Options{Node: o.node})
	if err != nil {
		return true, &exitError{code: report.ExitUsage, err: fmt.Errorf("import: %w", err)}
	}
	w := red.Writer(streams.ErrOut, "foreign.txt")
	describeForeign(w, res)
	if err := w.Close(); err != nil {
		return true, fmt.Errorf("writing what was recognized: %w", err)
	}
	if o.out != "" {
		if err := (importer.Result{Files: res.Files, Report: importer.Report{NodeFrom: "other collectors' bundles: see foreign.json"}}).Write(o.out); err != nil {
			return true, &exitError{code: report.ExitUsage, err: fmt.Errorf("import: %w", err)}
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err == nil {
			err = os.WriteFile(filepath.Join(o.out, "foreign.json"), append(b, '\n'), 0o644)
		}
		if err != nil {
			return true, &exitError{code: report.ExitUsage, err: fmt.Errorf("import: writing foreign.json: %w", err)}
		}
		fmt.Fprintf(streams.ErrOut, "wrote %s (see %s)\n", o.out, filepath.Join(o.out, "foreign.json"))
	}
	if !o.analyze {
		return true, nil
	}
	ev := evidence.Evidence{FS: res.FS()}
	findings, err := engine.Analyze(ctx, probes.Default(), ev, nil)
	if err != nil {
		return true, &exitError{code: report.ExitUsage, err: fmt.Errorf("analyzing the imported bundles: %w", err)}
	}
	(&foreignInput{res}).explain(findings)
	meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: res.Describe()}
	return true, printFindings(ctx, streams, format, failOn, meta, findings, engine.ReaderOf(ev), o.output, red)
}
