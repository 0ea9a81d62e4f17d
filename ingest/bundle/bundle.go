// Package bundle writes and reads snapshot bundles: a tar.gz of evidence files plus
// manifest.json (tool version, time, how each node was reached, per-file status, size and
// sha256, and a summary of what redaction removed). It knows files, not findings: the
// caller hands it the rendered report as plain files.
//
// Layout of a bundle, in tar order:
//
//	cluster/...            evidence entries, sorted by path; each directory entry comes
//	nodes/<node>/...       right before the first file under it
//	findings.json ...      (whatever else the source holds, sorted the same way)
//	manifest.json          always the LAST entry: it lists the sha256 of every entry
//	                       before it, which is only known once they are written
//
// Bundles are reproducible: sorted entries, modes 0644/0755, uid/gid 0 with no user
// names, one fixed mtime (Options.Time, or the Unix epoch), and a gzip header with no
// name and no mtime. Two Writes of the same files with the same Options are
// byte-identical.
//
// Redaction is on by default (redact, by value for JSON). A file over
// Options.MaxFileSize keeps its tail when it is a log and is left out, with a ".err"
// saying why, when it is not (a JSON file cut short is not JSON).
//
// Readers verify everything before handing out a single byte: the gzip and tar streams,
// the manifest, every entry's size and sha256, and that no entry can escape the
// extraction root. They are bounded by Limits, for bundles (OpenLimits) and evidence
// folders (OpenFolder) alike: each evidence file is capped by its kind, and the tar
// headers (sizes, sparse files, depth, node folders) are checked before entries are read.
package bundle

import (
	"fmt"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// FormatVersion is the manifest format this build writes and reads. Bump it on any
// change an older reader would misread; adding an optional field is not such a change.
const FormatVersion = 1

// Item statuses in the manifest.
const (
	StatusOK        = "ok"        // collected in full
	StatusTruncated = "truncated" // the start was cut to respect the size cap; the tail is kept
	StatusError     = "error"     // the snippet failed; the file may be absent, Error says why
)

// Manifest is manifest.json, the bundle's table of contents.
type Manifest struct {
	FormatVersion int       `json:"formatVersion"`
	Tool          string    `json:"tool"`
	Version       string    `json:"version"`
	Time          time.Time `json:"time,omitzero"`
	// Redacted is false only when the bundle was written with redaction turned off.
	Redacted   bool            `json:"redacted"`
	Nodes      map[string]Node `json:"nodes"`
	Items      []Item          `json:"items"`
	Redactions []Redaction     `json:"redactions"`
}

// Node is how a node was reached, and why not when it was not.
type Node struct {
	Transport string `json:"transport"`
	Address   string `json:"address"`
	Error     string `json:"error"`
}

// Item is one evidence path. A file present in the bundle always has SHA256 set; an item
// with status "error" and no SHA256 was not collected at all (its ".err" companion,
// itself an item, holds the node's error text).
type Item struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
	// OriginalSize is the size before the cap, for truncated items.
	OriginalSize int64 `json:"originalSize,omitempty"`
}

// present reports whether the item is a file in the bundle.
func (it Item) present() bool { return it.SHA256 != "" }

// Redaction counts the values one rule replaced in one file. The secret itself is never
// recorded anywhere.
type Redaction struct {
	Rule  string `json:"rule"`
	File  string `json:"file"`
	Count int    `json:"count"`
}

// Item returns the manifest item at a path.
func (m *Manifest) Item(p string) (Item, bool) {
	for _, it := range m.Items {
		if it.Path == p {
			return it, true
		}
	}
	return Item{}, false
}

// RedactedValues is the total number of values redaction replaced.
func (m *Manifest) RedactedValues() int {
	n := 0
	for _, r := range m.Redactions {
		n += r.Count
	}
	return n
}

// VerifyError is why a bundle was refused. Kind is one of the Problem constants.
type VerifyError struct {
	Kind   Problem
	Entry  string // the entry concerned, when there is one
	Detail string
}

// Problem classifies a refused bundle.
type Problem string

const (
	Truncated   Problem = "truncated"    // the gzip or tar stream ends early
	Corrupt     Problem = "corrupt"      // not gzip, not tar, or a gzip checksum error
	Tampered    Problem = "tampered"     // an entry differs from what the manifest says
	Unsafe      Problem = "unsafe"       // an entry could escape the root, is a link or device, or repeats
	BadManifest Problem = "bad manifest" // no manifest, unreadable, or an unknown format version
	TooLarge    Problem = "too large"    // beyond the reader's limits (a decompression bomb?)
)

func (e *VerifyError) Error() string {
	switch e.Kind {
	case Truncated:
		return "bundle is truncated: " + e.Detail
	case Tampered:
		return fmt.Sprintf("tampered: %s %s", e.Entry, e.Detail)
	case Unsafe:
		return fmt.Sprintf("unsafe entry %q: %s", e.Entry, e.Detail)
	}
	if e.Entry != "" {
		return fmt.Sprintf("%s: %s: %s", e.Kind, e.Entry, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Detail)
}

// reserved reports whether a path is one the writer puts in itself.
func reserved(p string) bool { return p == evidence.BundleManifest }

// nonEvidence are the bundle files outside the evidence tree; Diff ignores them.
func nonEvidence(p string) bool {
	switch p {
	case evidence.BundleManifest, evidence.BundleFindings, evidence.BundleReport, evidence.BundleAudit:
		return true
	}
	return false
}

// firstLines keeps an error text short enough for the manifest.
func firstLines(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
