package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/golden"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestGolden renders the sample findings in every registered format (so a new format
// needs only its golden file: go test ./report -update), plus the text variants.
func TestGolden(t *testing.T) {
	type goldenCase struct {
		file   string
		format Format
		opt    Options
	}
	var cases []goldenCase
	for _, fi := range FormatInfos() {
		opt := Options{}
		if fi.Excerpts {
			opt.Excerpts = sampleExcerpts()
		}
		cases = append(cases, goldenCase{string(fi.Name) + ".golden", fi.Name, opt})
	}
	cases = append(cases,
		goldenCase{"text-verbose.golden", Text, Options{Verbose: true}},
		goldenCase{"text-color.golden", Text, Options{Color: true}},
	)
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, c.format, sampleMeta, sampleFindings(), c.opt); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, c.file, buf.Bytes())
		})
	}
}

// TestRegistry: parsing, help and completion all come from the one list.
func TestRegistry(t *testing.T) {
	help, comps := FormatHelp(), FormatCompletions()
	if len(comps) != len(FormatInfos()) {
		t.Fatalf("%d completions for %d formats", len(comps), len(FormatInfos()))
	}
	for i, fi := range FormatInfos() {
		if fi.write == nil || fi.Use == "" {
			t.Errorf("%s: registered without a writer or a use", fi.Name)
		}
		for _, s := range append([]string{string(fi.Name), strings.ToUpper(string(fi.Name))}, fi.Aliases...) {
			if got, err := ParseFormat(s); err != nil || got != fi.Name {
				t.Errorf("ParseFormat(%q) = %q, %v; want %s", s, got, err, fi.Name)
			}
		}
		if !strings.Contains(help, string(fi.Name)+" (") {
			t.Errorf("--output help does not list %s: %s", fi.Name, help)
		}
		if !strings.HasPrefix(comps[i], string(fi.Name)+"\t") {
			t.Errorf("completion %d is %q, want %s first", i, comps[i], fi.Name)
		}
	}
	_, err := ParseFormat("xml")
	if err == nil || !strings.Contains(err.Error(), "text, markdown, json, junit, yaml") {
		t.Errorf("ParseFormat(xml) error %v should list the formats", err)
	}
}

// TestEmpty: every format must render a run with no findings (the exit-3 case) without
// error, and still say so.
func TestEmpty(t *testing.T) {
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := Write(&buf, f, Meta{}, nil, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if buf.Len() == 0 {
			t.Errorf("%s: empty output", f)
		}
	}
	var buf bytes.Buffer
	_ = Write(&buf, JSON, Meta{}, nil, Options{})
	if !strings.Contains(buf.String(), `"findings": []`) {
		t.Errorf("json with no findings should have findings: [], got\n%s", buf.String())
	}
	buf.Reset()
	_ = Write(&buf, Text, Meta{}, nil, Options{})
	if got, want := buf.String(), "0 nodes, 0 fail, 0 warn, 0 error, 0 pass\n"; got != want {
		t.Errorf("text with no findings = %q, want %q", got, want)
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", Meta{}, sampleFindings(), Options{}); err == nil {
		t.Fatal("want an error for an unknown format")
	}
}

// TestWriteDoesNotMutate: renderers sort a copy; the engine and TUI keep their order.
func TestWriteDoesNotMutate(t *testing.T) {
	in := sampleFindings()
	before := make([]string, len(in))
	for i, f := range in {
		before[i] = f.Node + "/" + f.Probe
	}
	for _, f := range Formats() {
		if err := Write(&bytes.Buffer{}, f, sampleMeta, in, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	_ = NodeSummary(in)
	for i, f := range in {
		if got := f.Node + "/" + f.Probe; got != before[i] {
			t.Fatalf("finding %d is now %s, was %s", i, got, before[i])
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteReportsWriterError(t *testing.T) {
	for _, f := range Formats() {
		if err := Write(failWriter{}, f, sampleMeta, sampleFindings(), Options{}); err == nil {
			t.Errorf("%s: want the writer's error", f)
		}
	}
}

func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

// sortKeys is the rendered order of findings, for order assertions.
func sortKeys(fs []probes.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = NodeLabel(f.Node) + " " + f.Status.String() + " " + f.Probe
	}
	return out
}
