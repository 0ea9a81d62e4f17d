package engine

import (
	"path"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// EvidenceReader reads one evidence file as a finding cites it. The node says which
// cluster a "cluster/..." path belongs to when a fleet's nodes come from several (the
// demo gives each scenario its own cluster evidence).
type EvidenceReader func(node, path string) ([]byte, error)

// ReaderOf reads every node's evidence from one tree (a live run, a folder, a bundle).
func ReaderOf(ev evidence.Evidence) EvidenceReader {
	return func(_, p string) ([]byte, error) { return ev.Read(p) }
}

// Excerpts gives the text of the evidence behind each finding that is not a pass, by
// path, for the Markdown report (which cuts each to its limits). Files that cannot be
// read or are not text are left out: the report still names them. Each file is redacted
// whole by its own name first (red; nil for none): a JSON file by value, which a
// redaction of the report's lines cannot do once the excerpt has cut it.
func Excerpts(read EvidenceReader, findings []probes.Finding, red *redact.Redactor) map[string]string {
	out := map[string]string{}
	if read == nil {
		return out
	}
	for _, f := range findings {
		if f.Status == probes.Pass {
			continue
		}
		for _, p := range f.Evidence {
			if _, done := out[p]; done {
				continue
			}
			b, err := read(f.Node, p)
			if err != nil {
				continue
			}
			if t, err := decode.Text(p, b); err == nil {
				if red != nil {
					t = red.Bytes(path.Base(p), t)
				}
				out[p] = strings.ReplaceAll(string(t), "\r\n", "\n")
			}
		}
	}
	return out
}
