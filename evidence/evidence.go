// Package evidence is the evidence contract: the typed keys that name every evidence file
// once (key.go, keys*.go: path, scope, decoder, the snippet that prints it), the tree a
// run fills and every consumer reads (tree.go, redacted as it enters), reading it through
// the keys (Get), and which kind of node a folder holds (os.go). It is on the ground
// floor: it imports its decoders (decode, clusterconfig), the Kubernetes API types and the
// standard library only, so probes that read evidence pull in no transport and no
// embedded script.
package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// ErrSuffix marks the companion of an evidence file holding why it could not be collected:
// "exit N" on the first line, then the readable error text. A probe that finds the file
// missing reads this to say why.
const ErrSuffix = ".err"

// SweepErr is the node-level file written when the node could not be reached at all.
const SweepErr = "sweep.err"

// NodeFile is the path of a node's evidence file.
func NodeFile(node, name string) string { return path.Join("nodes", node, name) }

// IsNodeFile reports whether a probe's Needs entry names a node file (not a cluster path).
func IsNodeFile(name string) bool { return !strings.Contains(name, "/") }

// Evidence reads an evidence tree. It is an fs.FS so the same probes run on a live
// collection (in memory), a folder assembled by hand, or an unpacked bundle.
type Evidence struct {
	FS fs.FS
	// Memo, when set, keeps decoded files so the probes of a run decode each file once
	// (every cross-layer probe reads cluster/nodes.json). A Tree clears a path's entries
	// when the path changes.
	Memo *Memo
}

// Memo caches decoded evidence by path and decoded type.
type Memo struct {
	mu sync.Mutex
	m  map[string]map[string]any // path -> type -> value
}

// NewMemo makes an empty memo.
func NewMemo() *Memo { return &Memo{m: map[string]map[string]any{}} }

// Get returns what was stored for a path and type.
func (m *Memo) Get(path, typ string) (any, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[path][typ]
	return v, ok
}

// Put stores a decoded value.
func (m *Memo) Put(path, typ string, v any) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m[path] == nil {
		m.m[path] = map[string]any{}
	}
	m.m[path][typ] = v
}

// Forget drops what was decoded from a path (it changed). A changed .err companion
// changes how its file is judged, so it drops the file's entry too.
func (m *Memo) Forget(paths ...string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range paths {
		delete(m.m, p)
		delete(m.m, p+ErrSuffix)
		delete(m.m, strings.TrimSuffix(p, ErrSuffix))
	}
}

// Read returns the bytes at an evidence path. A missing file gives an error wrapping
// fs.ErrNotExist whose text also carries the recorded collection error, if any.
func (e Evidence) Read(p string) ([]byte, error) {
	if e.FS == nil {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	b, err := fs.ReadFile(e.FS, p)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if why := e.CollectError(p); why != "" {
		return nil, &MissingError{Path: p, Why: why}
	}
	return nil, &MissingError{Path: p}
}

// CollectError returns the recorded reason the file at p was not collected, or "".
func (e Evidence) CollectError(p string) string {
	if e.FS == nil {
		return ""
	}
	if b, err := fs.ReadFile(e.FS, p+ErrSuffix); err == nil {
		return strings.TrimSpace(string(b))
	}
	if dir := path.Dir(p); strings.HasPrefix(dir, "nodes/") {
		if b, err := fs.ReadFile(e.FS, path.Join(dir, SweepErr)); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// Has reports whether the evidence file exists.
func (e Evidence) Has(p string) bool {
	if e.FS == nil {
		return false
	}
	_, err := fs.Stat(e.FS, p)
	return err == nil
}

// Nodes lists the node folders present under nodes/, sorted. It hides what ListNodes
// reports (entries that are not folders, an unreadable nodes/); callers that can say so
// should use ListNodes.
func (e Evidence) Nodes() []string {
	l, _ := e.ListNodes()
	return l.Names
}

// NodeList is what nodes/ holds.
type NodeList struct {
	Names      []string // node folders, sorted
	NotFolders []string // entries of nodes/ that are not folders (a file nodes/win-1), sorted
}

// ListNodes reads nodes/. A tree without nodes/ has no nodes, which is no error (cluster
// evidence alone); a nodes/ that cannot be read, or is not a folder, is one, so it is not
// mistaken for "no node evidence". A file where a node folder belongs is listed in
// NotFolders rather than dropped: someone meant it as a node.
func (e Evidence) ListNodes() (NodeList, error) {
	var l NodeList
	if e.FS == nil {
		return l, nil
	}
	entries, err := fs.ReadDir(e.FS, "nodes")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l, nil
	case err != nil:
		if st, serr := fs.Stat(e.FS, "nodes"); serr == nil && !st.IsDir() {
			return l, errors.New("nodes is a file, not a folder: node evidence goes in nodes/<node-name>/")
		}
		return l, fmt.Errorf("reading the node folders in nodes/: %w", err)
	}
	for _, d := range entries {
		isDir := d.IsDir()
		if !isDir && d.Type()&fs.ModeSymlink != 0 {
			// A link is judged by what it points at (a reader that refuses links
			// leaving the tree fails the Stat).
			st, err := fs.Stat(e.FS, path.Join("nodes", d.Name()))
			isDir = err == nil && st.IsDir()
		}
		if isDir {
			l.Names = append(l.Names, d.Name())
		} else {
			l.NotFolders = append(l.NotFolders, d.Name())
		}
	}
	sort.Strings(l.Names)
	sort.Strings(l.NotFolders)
	return l, nil
}

// MissingError says an evidence file is absent and, when known, why it was not collected.
type MissingError struct {
	Path string
	Why  string
}

func (m *MissingError) Error() string {
	if m.Why == "" {
		return m.Path + ": not collected"
	}
	return m.Path + ": not collected: " + firstLine(m.Why)
}

func (m *MissingError) Unwrap() error { return fs.ErrNotExist }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	// "exit N" alone on the first line says little; the cause is on the next.
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) > 1 && strings.HasPrefix(lines[0], "exit ") {
		return strings.TrimSpace(lines[0]) + ": " + strings.TrimSpace(lines[1])
	}
	return strings.TrimSpace(lines[0])
}
