// Package foreign reads the bundles support receives from other collectors: microsoft/SDN's
// collectlogs.ps1 (and its copies in microsoft/wcnscripts and Azure/AgentBaker), AKS's
// collect-windows-logs.ps1 zip, EKS's eks-log-collector.ps1 zip and `kubectl cluster-info
// dump`. Each collector is recognized by its layout (which files, where), and every file a
// mapping knows becomes the evidence file of our contract: JSON the collector saved goes
// through the key's own decoder, console text through the paste importer, as if a
// customer had pasted it with the command that printed it. What a bundle does not hold
// is a gap naming what to collect; the files no mapping knows are listed, so a newer
// version of a collector says what it added.
//
// Several bundles of one case (a node zip and a cluster dump, say) are one input: a
// folder holding them, or several paths; they become one evidence tree.
package foreign

import (
	"bytes"
	"context"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// Options tune reading.
type Options struct {
	// Limits bound what reading costs; the zero value takes bundle.DefaultLimits.
	Limits bundle.Limits
	// Node names the node of a node bundle that does not say which node it is (and
	// that no cluster dump next to it identifies).
	Node string
	// Redact redacts every file as it is first read (the run's redactor: the default
	// rules and --redact-rules); nil means redact.Default().
	Redact *redact.Redactor
}

// Bundle is one collector's output found in the input.
type Bundle struct {
	Collector string `json:"collector"` // "collectlogs.ps1"
	Version   string `json:"version"`   // the layout recognized, and what tells it
	Upstream  string `json:"upstream"`  // the script the mapping was read from
	Source    string `json:"source"`    // the input, and the folder inside it
	Node      string `json:"node,omitempty"`
	NodeFrom  string `json:"nodeFrom,omitempty"`
	// Read are its files that gave evidence; Known those a mapping knows and does not
	// read (with why); Unknown those no mapping knows (a newer version of the collector?).
	Read     []string `json:"read"`
	Known    []string `json:"known,omitempty"`
	Unknown  []string `json:"unknown,omitempty"`
	Evidence []string `json:"evidence"` // the evidence paths it filled
	Notes    []string `json:"notes,omitempty"`
	// Gaps are the evidence files of its side (node or cluster) it does not hold, and
	// what to collect for each.
	Gaps []Gap `json:"gaps,omitempty"`
}

// Gap is one evidence file a bundle does not hold.
type Gap struct {
	Path    string `json:"path"`
	Collect string `json:"collect"`
}

// Result is the evidence the input gave.
type Result struct {
	Bundles []Bundle          `json:"bundles"`
	Ignored []string          `json:"ignored,omitempty"` // inputs no collector recognized
	Files   map[string][]byte `json:"-"`
}

// FS is the evidence as a tree the engine reads.
func (r *Result) FS() fs.FS {
	return evidence.FilesFS(r.Files)
}

// Describe names what was recognized, for the report's source line.
func (r *Result) Describe() string {
	var parts []string
	for _, b := range r.Bundles {
		s := b.Collector + " (" + b.Version + ")"
		if b.Node != "" {
			s += " of node " + b.Node
		}
		parts = append(parts, s+" from "+b.Source)
	}
	return strings.Join(parts, "; ")
}

// Gap says what to collect for an evidence path the input does not hold, naming the
// bundle that would have held it.
func (r *Result) Gap(p string) (string, bool) {
	for _, b := range r.Bundles {
		for _, g := range b.Gaps {
			if g.Path == p {
				return b.Collector + " does not save it: " + g.Collect, true
			}
		}
	}
	return "", false
}

// NotRecognizedError says no input held a bundle in a layout this reader knows.
type NotRecognizedError struct{ Inputs []string }

func (e *NotRecognizedError) Error() string {
	return "no collector's bundle recognized: " + strings.Join(e.Inputs, "; ") +
		" (read: collectlogs.ps1, collect-windows-logs.ps1, eks-log-collector.ps1, kubectl cluster-info dump)"
}

// Open reads the inputs (files or folders) as foreign bundles. An input that holds no
// bundle any collector's layout matches is listed in Ignored; when nothing at all is
// recognized, Open fails saying what each input was.
func Open(ctx context.Context, paths []string, opt Options) (*Result, error) {
	if opt.Limits == (bundle.Limits{}) {
		opt.Limits = bundle.DefaultLimits()
	}
	res := &Result{Files: map[string][]byte{}}
	var found []*mapped
	for _, p := range paths {
		srcs, err := sources(p, opt.Limits)
		if err != nil {
			return nil, err
		}
		for _, src := range srcs {
			ms, err := recognize(ctx, src)
			if err != nil {
				return nil, err
			}
			if len(ms) == 0 {
				res.Ignored = append(res.Ignored, src.label+": "+describeUnrecognized(src))
			}
			found = append(found, ms...)
		}
	}
	if len(found) == 0 {
		return nil, &NotRecognizedError{Inputs: res.Ignored}
	}
	if err := assemble(res, found, opt); err != nil {
		return nil, err
	}
	return res, nil
}

// sources lists an input: a file or folder is one source; in a folder (a case folder)
// each archive, and each file that is a cluster dump printed to stdout, is one too.
func sources(p string, lim bundle.Limits) ([]*source, error) {
	src, err := openSource(p, lim)
	if err != nil {
		return nil, err
	}
	out := []*source{src}
	if !src.isFolder {
		return out, nil
	}
	for _, e := range src.entries {
		if strings.Count(e.name, "/") >= 2 {
			continue
		}
		full := filepath.Join(p, filepath.FromSlash(e.name))
		if isArchiveName(e.name) || path.Base(e.name) != "nodes.json" && looksLikeDump(full) {
			inner, err := openSource(full, lim)
			if err != nil {
				return nil, fmt.Errorf("in the case folder %s: %w", p, err)
			}
			out = append(out, inner)
		}
	}
	return out, nil
}

// looksLikeDump: a file starting as kubectl prints a NodeList (a cluster dump's first
// document).
func looksLikeDump(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	t, err := decode.Text(p, head[:n&^1])
	if err != nil {
		t = head[:n]
	}
	t = bytes.TrimSpace(t)
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"NodeList"`))
}

func isArchiveName(n string) bool {
	n = strings.ToLower(n)
	for _, s := range []string{".zip", ".tar.gz", ".tgz", ".tar"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// describeUnrecognized says what an input held when no layout matched.
func describeUnrecognized(src *source) string {
	if len(src.entries) == 0 {
		return "empty"
	}
	var names []string
	for i, e := range src.entries {
		if i == 8 {
			names = append(names, fmt.Sprintf("… %d more", len(src.entries)-8))
			break
		}
		names = append(names, e.name)
	}
	return fmt.Sprintf("%d files, none in a layout this reader knows (%s)", len(src.entries), strings.Join(names, ", "))
}
