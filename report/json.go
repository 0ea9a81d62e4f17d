package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// SchemaVersion is the version of the JSON envelope this build writes. Bump it on any
// change an older reader would misread (renames, changed meaning); adding an optional
// field is not such a change, and readers ignore fields they do not know. Read accepts
// every version in ReadableVersions.
//
// The envelope (schemaVersion 2):
//
//	{
//	  "schemaVersion": 2,
//	  "tool": "wintroubleshoot", "version": "0.3.0",   // strings, "" when unknown
//	  "source": "bundle x.tar.gz",                     // where the evidence came from
//	  "cluster": "aks-prod", "context": "aks-prod-admin",
//	  "time": "2025-01-02T03:04:05Z",                  // RFC 3339; omitted when unknown
//	  "summary": {"nodes": 2, "pass": 5, "skip": 0, "warn": 1, "fail": 2, "error": 1},
//	  "rootCauses": [                                  // what to fix first, see RootCauses
//	    {"probe": "NODE-PODCIDR", "node": "win-1", "status": "fail", "summary": "...",
//	     "clears": [{"probe": "HNS-NETWORK", "node": "win-1"}, ...]}
//	  ],
//	  "findings": [ ... ]                              // probes.Finding, report order
//	}
//
// summary.nodes counts real nodes (cluster-wide findings are not a node). Statuses are
// the names "pass", "skip", "warn", "fail", "error". findings and rootCauses are [] when
// empty, never null.
//
// Version 2 changed the meaning of the findings' order: root causes first within a node,
// each followed by the consequences it explains; a finding's "causedBy" lists the
// findings ({"probe", "node"}) that explain it, on its node or another. rootCauses lists
// failures nothing explains (and warnings that explain something), worst first; "clears"
// is what fixing one should also clear, nearest first. Version 1 had neither field.
const SchemaVersion = 2

// ReadableVersions are the envelope versions Read accepts: version 1 is version 2
// without causes, so older bundles still analyze and diff.
func ReadableVersions() []int { return []int{1, 2} }

type envelope struct {
	SchemaVersion int              `json:"schemaVersion"`
	Tool          string           `json:"tool"`
	Version       string           `json:"version"`
	Source        string           `json:"source"`
	Cluster       string           `json:"cluster"`
	Context       string           `json:"context"`
	Reached       string           `json:"reached,omitempty"`
	Time          time.Time        `json:"time,omitzero"`
	Summary       jsonSummary      `json:"summary"`
	RootCauses    []RootCause      `json:"rootCauses"`
	Findings      []probes.Finding `json:"findings"`
}

type jsonSummary struct {
	Nodes int `json:"nodes"`
	Pass  int `json:"pass"`
	Skip  int `json:"skip"`
	Warn  int `json:"warn"`
	Fail  int `json:"fail"`
	Error int `json:"error"`
}

func writeJSON(w *bufio.Writer, meta Meta, sorted []probes.Finding, _ Options) error {
	c := Counts(sorted)
	env := envelope{
		SchemaVersion: SchemaVersion,
		Tool:          meta.Tool,
		Version:       meta.Version,
		Source:        meta.Source,
		Cluster:       meta.Cluster,
		Context:       meta.Context,
		Reached:       meta.Reached,
		Time:          meta.Time,
		Summary: jsonSummary{
			Nodes: nodeCount(sorted),
			Pass:  c[probes.Pass], Skip: c[probes.Skip], Warn: c[probes.Warn],
			Fail: c[probes.Fail], Error: c[probes.Error],
		},
		RootCauses: RootCauses(sorted),
		Findings:   sorted,
	}
	if env.Findings == nil {
		env.Findings = []probes.Finding{}
	}
	if env.RootCauses == nil {
		env.RootCauses = []RootCause{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	// Commands hold "&&", "<" and ">" that people read in the file; JSON is not HTML.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return err
	}
	_, err := w.Write(escapeInvisible(buf.Bytes()))
	return err
}

// escapeInvisible writes C1 controls (U+0080-U+009F: U+009B is a terminal's CSI) and
// bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) as \u escapes, as the text
// output shows them escaped: encoding/json escapes only C0, and a report piped to a
// terminal or pasted into a ticket must not reorder or recolour what it says. Outside
// strings JSON is ASCII, so such runes are always inside a string, where the escape
// means the same rune.
func escapeInvisible(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// Read parses a JSON report written by Write (as stored in a bundle) back into its
// meta and findings, for `analyze` and `diff`. It rejects a schemaVersion it does not
// know rather than guess, and ignores unknown fields so additive changes stay readable.
// The summary is not returned: it is derived, so callers recompute it with Counts.
func Read(r io.Reader) (Meta, []probes.Finding, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Meta{}, nil, fmt.Errorf("read report: %w", err)
	}
	// Check the version before decoding the rest, so a future format's findings are
	// never half-understood (and its errors never reported as ours).
	var head struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Meta{}, nil, fmt.Errorf("read report: not a JSON report: %w", err)
	}
	switch {
	case head.SchemaVersion == nil:
		return Meta{}, nil, errors.New("read report: no schemaVersion; not a wintroubleshoot JSON report")
	case !slices.Contains(ReadableVersions(), *head.SchemaVersion):
		return Meta{}, nil, fmt.Errorf("read report: schemaVersion %d is not supported (this build reads %v); was it written by a newer wintroubleshoot?",
			*head.SchemaVersion, ReadableVersions())
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Meta{}, nil, fmt.Errorf("read report: %w", err)
	}
	meta := Meta{
		Tool: env.Tool, Version: env.Version, Source: env.Source,
		Cluster: env.Cluster, Context: env.Context, Time: env.Time, Reached: env.Reached,
	}
	return meta, env.Findings, nil
}
