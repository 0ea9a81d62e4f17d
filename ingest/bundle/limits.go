package bundle

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits bound what reading a bundle or an evidence folder may cost, whatever is in it.
// Each evidence file is capped by its kind: JSON and other structured files over their
// cap are refused with a LimitError (a cut JSON file is invalid JSON, and probes would
// report it as garbled evidence); logs and ".err" files are tailed, with a first line
// saying how much was left out. Everything else bounds the bundle as a whole, and is
// checked on each tar header before the entry is read.
type Limits struct {
	MaxNodeJSON    int64 // a node's JSON evidence (host.json, processes.json, ...)
	MaxClusterJSON int64 // cluster/*.json: pods and events of a large cluster are big
	MaxText        int64 // other structured files: containerd-config.toml, kubeconfigs, report.md
	MaxLog         int64 // logs and .err files are served as their last MaxLog bytes
	MaxEntry       int64 // any one entry, as declared; larger refuses the bundle unread
	MaxTotal       int64 // decompressed bytes of the whole bundle (decompression bombs)
	MaxManifest    int64
	MaxEntries     int // tar entries, directories included
	MaxNodes       int // node folders under nodes/
	MaxDepth       int // path elements of an entry: nodes/<node>/<file> is 3
	MaxNameLen     int // bytes of an entry name
}

// DefaultLimits are sized for the largest real snapshots: 5,000 nodes is Kubernetes'
// own scalability limit for a cluster; a node's biggest JSON (HNS endpoints and policy
// lists of a busy node) is a few MB; a snapshot keeps 10 MiB of each log by default.
// The memory they bound is described at Open.
func DefaultLimits() Limits {
	return Limits{
		MaxNodeJSON:    32 << 20,
		MaxClusterJSON: 128 << 20,
		MaxText:        16 << 20,
		MaxLog:         32 << 20,
		MaxEntry:       1 << 30,
		MaxTotal:       8 << 30,
		MaxManifest:    64 << 20,
		MaxEntries:     200_000,
		MaxNodes:       5_000,
		MaxDepth:       8,
		MaxNameLen:     1024,
	}
}

// fileKind says how an evidence file is capped.
type fileKind int8

const (
	kindJSON fileKind = iota // refused over the cap
	kindText                 // refused over the cap
	kindLog                  // tailed to the cap
)

// kindOf classifies an evidence path and returns its cap.
func (l Limits) kindOf(p string) (fileKind, int64) {
	switch {
	case strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".err"):
		return kindLog, l.MaxLog
	case strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl"):
		if strings.HasPrefix(p, "cluster/") {
			return kindJSON, l.MaxClusterJSON
		}
		return kindJSON, l.MaxNodeJSON
	}
	return kindText, l.MaxText
}

// LimitError says an evidence file was refused for its size.
type LimitError struct {
	Path        string
	Size, Limit int64
	What        string // "JSON", "text"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is %d bytes; %s evidence is read up to %d bytes, so it was refused rather than cut short",
		e.Path, e.Size, e.What, e.Limit)
}

// tailMarker is the first line of a log served in part.
func tailMarker(cut, limit int64) string {
	return fmt.Sprintf("[wintroubleshoot: the first %d bytes of this file were not read: logs are read up to their last %d bytes]\n", cut, limit)
}

// checkName refuses entry names that are too long or too deep, before anything else is
// done with them: a tree 50,000 folders deep costs quadratic time in every path
// operation.
func (l Limits) checkName(name string) error {
	if len(name) > l.MaxNameLen {
		return &VerifyError{Kind: TooLarge, Entry: name[:64] + "…", Detail: fmt.Sprintf("a name of %d bytes (at most %d)", len(name), l.MaxNameLen)}
	}
	if d := strings.Count(strings.Trim(name, "/"), "/") + 1; d > l.MaxDepth {
		return &VerifyError{Kind: TooLarge, Entry: name, Detail: fmt.Sprintf("%d levels deep (at most %d)", d, l.MaxDepth)}
	}
	return nil
}

// NodeNameError says a folder under nodes/ is not named like a Kubernetes node.
type NodeNameError struct {
	Name     string
	Problems []string
}

func (e *NodeNameError) Error() string {
	return fmt.Sprintf("node folder nodes/%s: not a Kubernetes node name: %s", e.Name, strings.Join(e.Problems, "; "))
}

// CheckNodeName validates a node name as Kubernetes does (an RFC 1123 subdomain:
// lower-case letters, digits, '-' and '.', at most 253 characters).
func CheckNodeName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return &NodeNameError{Name: name, Problems: errs}
	}
	return nil
}

// nodeFolder returns the node a path lies under (nodes/<node> or below).
func nodeFolder(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "nodes/")
	if !ok || rest == "" {
		return "", false
	}
	node, _, _ := strings.Cut(rest, "/")
	return node, true
}

// nodeCounter counts node folders and refuses badly named ones and too many.
type nodeCounter struct {
	max   int
	nodes map[string]bool
}

func (c *nodeCounter) add(p string, isDir bool) error {
	node, ok := nodeFolder(p)
	if !ok || !isDir && path.Dir(p) == "nodes" {
		return nil // a file right under nodes/ is no node folder
	}
	if c.nodes[node] {
		return nil
	}
	if err := CheckNodeName(node); err != nil {
		return &VerifyError{Kind: Unsafe, Entry: p, Detail: err.Error()}
	}
	if c.nodes == nil {
		c.nodes = map[string]bool{}
	}
	c.nodes[node] = true
	if len(c.nodes) > c.max {
		return &VerifyError{Kind: TooLarge, Detail: fmt.Sprintf("more than %d node folders", c.max)}
	}
	return nil
}

// Capped is a file a reader does not get whole.
type Capped struct {
	Path        string
	Size, Limit int64
	Refused     bool // opening it fails with a *LimitError; otherwise its tail is served
}

func (c Capped) String() string {
	if c.Refused {
		return fmt.Sprintf("%s: %d bytes, refused (over the cap of %d)", c.Path, c.Size, c.Limit)
	}
	return fmt.Sprintf("%s: %d bytes, only the last %d read", c.Path, c.Size, c.Limit)
}

// Capped lists the bundle's files a reader does not get whole, sorted by path, so a
// front end can say so next to the findings.
func (b *Bundle) Capped() []Capped {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Capped
	for p, e := range b.files {
		switch {
		case e.refused != nil:
			out = append(out, Capped{Path: p, Size: e.size, Limit: e.refused.Limit, Refused: true})
		case e.tail > 0:
			out = append(out, Capped{Path: p, Size: e.size, Limit: e.tail})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
