package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// Format names an output format.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
	JUnit    Format = "junit"
	YAML     Format = "yaml"
)

// writeFunc renders findings already in report order. bufio keeps the first write
// error, so a writer may ignore the errors of its own Fprintf calls: Write checks Flush.
type writeFunc func(w *bufio.Writer, meta Meta, sorted []probes.Finding, opt Options) error

// FormatInfo is one registered output format: what -o accepts, what help says about it,
// and which of Options it uses, so front ends fill only what a format shows.
type FormatInfo struct {
	Name    Format
	Aliases []string // also accepted by ParseFormat
	Use     string   // what it is for, in help text and shell completion
	// Color: it paints ANSI colour when Options.Color is set (on a terminal).
	Color bool
	// Excerpts: it shows Options.Excerpts, which the caller must read from the evidence.
	Excerpts bool
	// File is the name a report of this format is redacted as (WriteRedacted): its
	// suffix tells the redactor to read JSON by value and everything else by line.
	File  string
	write writeFunc
}

// registry is the one list of output formats, in the order help shows them. A new
// format is its writer and one line here (plus its golden file: the golden test walks
// this list).
func registry() []FormatInfo {
	return []FormatInfo{
		{Name: Text, Use: "for a terminal", Color: true, File: "report.txt", write: writeText},
		{Name: Markdown, Aliases: []string{"md"}, Use: "paste into a ticket", Excerpts: true, File: "report.md", write: writeMarkdown},
		{Name: JSON, Use: "for automation; analyze and diff read it back", File: "findings.json", write: writeJSON},
		{Name: JUnit, Use: "for CI test reports", File: "report.xml", write: writeJUnit},
		{Name: YAML, Aliases: []string{"yml"}, Use: "the JSON report as YAML, as kubectl -o yaml prints", File: "findings.yaml", write: writeYAML},
	}
}

// FormatInfos lists the registered formats in help order.
func FormatInfos() []FormatInfo { return registry() }

// Formats lists the format names in help order.
func Formats() []Format {
	var out []Format
	for _, f := range registry() {
		out = append(out, f.Name)
	}
	return out
}

// Info describes a registered format; ok is false for an unknown one.
func (f Format) Info() (FormatInfo, bool) {
	for _, fi := range registry() {
		if fi.Name == f {
			return fi, true
		}
	}
	return FormatInfo{}, false
}

// ParseFormat reads an --output value, case-insensitively, by name or alias.
func ParseFormat(s string) (Format, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	for _, f := range registry() {
		if v == string(f.Name) || slices.Contains(f.Aliases, v) {
			return f.Name, nil
		}
	}
	return "", fmt.Errorf("unknown report format %q (want one of %s)", s, formatNames())
}

// FormatHelp is the --output flag's help: every format and what it is for.
func FormatHelp() string {
	var parts []string
	for _, f := range registry() {
		parts = append(parts, fmt.Sprintf("%s (%s)", f.Name, f.Use))
	}
	return "output format: " + strings.Join(parts, ", ")
}

// FormatCompletions are the --output values with their use, in the "value\tdescription"
// form shell completion shows.
func FormatCompletions() []string {
	var out []string
	for _, f := range registry() {
		out = append(out, string(f.Name)+"\t"+f.Use)
	}
	return out
}

func formatNames() string {
	names := make([]string, 0, 4)
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Write renders findings in format f. It sorts a copy; the caller's slice is untouched.
func Write(w io.Writer, f Format, meta Meta, findings []probes.Finding, opt Options) error {
	fi, ok := f.Info()
	if !ok {
		return fmt.Errorf("unknown report format %q (want one of %s)", string(f), formatNames())
	}
	bw := bufio.NewWriter(w)
	if err := fi.write(bw, meta, Sort(findings), opt); err != nil {
		return err
	}
	// bufio keeps the first write error, so checking Flush covers every write above.
	return bw.Flush()
}

// WriteRedacted is Write through r. Every text a finding, its fix, the excerpts and the
// header hold is redacted first (Redacted), before a format escapes it: Markdown's \_
// and JUnit's &amp; would hide a secret from every rule. Text and Markdown are then
// redacted line by line once more as they are written (the lines a format composes),
// and JSON by value once whole; JUnit is not, as a rule matching across an entity
// (&amp;) could cut it and break the XML. Every report that leaves the tool goes
// through here, so a secret in a detail, an excerpt or the cluster address
// (https://user:pass@host) never reaches the terminal, a file or a ticket. r nil is Write.
func WriteRedacted(w io.Writer, f Format, meta Meta, findings []probes.Finding, opt Options, r *redact.Redactor) error {
	fi, ok := f.Info()
	if !ok || r == nil {
		return Write(w, f, meta, findings, opt)
	}
	meta, findings, opt = Redacted(meta, findings, opt, r.String)
	if f == JUnit {
		return Write(w, f, meta, findings, opt)
	}
	rw := r.Writer(w, fi.File)
	err := Write(rw, f, meta, findings, opt)
	if cerr := rw.Close(); err == nil {
		err = cerr
	}
	return err
}
