package evidence

import (
	"strings"
)

// Scope says where an evidence file lives: once per node, or once for the cluster.
type Scope int

const (
	// Node evidence is stored at nodes/<node>/<name>, the stdout of one node snippet.
	Node Scope = iota
	// Cluster evidence is stored at its path (cluster/...), read from the API.
	Cluster
)

func (s Scope) String() string {
	if s == Cluster {
		return "cluster"
	}
	return "node"
}

// Meta is everything a key declares besides its decoder.
type Meta struct {
	// Name is the node file name ("host.json") or the cluster path ("cluster/nodes.json").
	Name  string
	Scope Scope
	// Snippet is the node snippet that prints the file: collect/scripts/snippets/<Snippet>.ps1.
	// It is the file name, so the sweep stores each snippet's output under its own name.
	Snippet string
	// Params are the sweep parameters the snippet takes, by name ("MaxBytes", "Since").
	Params []string
	// SnapshotOnly: only a snapshot collects it (logs and detail for a support case); no
	// probe reads it.
	SnapshotOnly bool
	// Raw: the file as it is on disk (TOML, YAML), not printed by PowerShell, so its line
	// ends are whatever the file has.
	Raw bool
	// Command and Format are the contract table's columns: how to produce the file by
	// hand, and what the decoder accepts.
	Command, Format string
	// OS is the kind of node that has the file: empty for Windows (every key before the
	// Linux ones), Linux for what the shell sweep of a Linux worker prints (keys_linuxnode.go).
	OS OS
}

// Ref is any key, whatever it decodes to: what lists of keys hold.
type Ref interface {
	Meta() Meta
	// Path is where the file is in an evidence tree (node is ignored for cluster keys).
	Path(node string) string
	// Validate decodes the bytes and keeps only the error.
	Validate(path string, b []byte) error
}

// Key names one evidence file and decodes it to a T.
type Key[T any] struct {
	meta   Meta
	decode func(path string, b []byte) (T, error)
}

// NodeKey declares a node evidence file produced by the snippet of the same name.
func NodeKey[T any](name string, dec func(string, []byte) (T, error), m Meta) Key[T] {
	m.Name, m.Scope, m.Snippet = name, Node, name
	return Key[T]{meta: m, decode: dec}
}

// ClusterKey declares a cluster evidence file at a path under cluster/.
func ClusterKey[T any](path string, dec func(string, []byte) (T, error), m Meta) Key[T] {
	m.Name, m.Scope = path, Cluster
	return Key[T]{meta: m, decode: dec}
}

// Meta returns the key's declaration.
func (k Key[T]) Meta() Meta { return k.meta }

// Name is the node file name or the cluster path.
func (k Key[T]) Name() string { return k.meta.Name }

// Path is where the file is for a node (or for the cluster).
func (k Key[T]) Path(node string) string {
	if k.meta.Scope == Cluster {
		return k.meta.Name
	}
	return NodeFile(node, k.meta.Name)
}

// Decode decodes the bytes of the file at path.
func (k Key[T]) Decode(path string, b []byte) (T, error) { return k.decode(path, b) }

// Validate decodes and keeps only the error.
func (k Key[T]) Validate(path string, b []byte) error { _, err := k.decode(path, b); return err }

// decoded is a memoized result, error included: a broken file stays broken.
type decoded[T any] struct {
	v   T
	err error
}

// Get reads and decodes the key's file for a node, once per memo. A missing file gives a
// *MissingError (Why empty when it is simply absent; the recorded reason when the sweep
// wrote a .err companion). A file whose .err companion says anything but "exit 0" is
// judged not collected either: a snippet that failed can still have printed something
// ("[]" before crictl failed), and that output is not evidence of an empty list.
func Get[T any](ev Evidence, node string, k Key[T]) (T, error) {
	p := k.Path(node)
	if v, ok := ev.Memo.Get(p, k.meta.Name); ok {
		r := v.(decoded[T])
		return r.v, r.err
	}
	v, err := getOnce(ev, p, k)
	ev.Memo.Put(p, k.meta.Name, decoded[T]{v, err})
	return v, err
}

func getOnce[T any](ev Evidence, p string, k Key[T]) (T, error) {
	var zero T
	b, err := ev.Read(p)
	if err != nil {
		return zero, err
	}
	if why := ev.CollectError(p); why != "" && !strings.HasPrefix(why, "exit 0") {
		return zero, &MissingError{Path: p, Why: why}
	}
	return k.decode(p, b)
}

// Of finds the key an evidence path belongs to: a node file or its .err companion, or a
// cluster path. ok is false for paths no key declares (sweep.err, bundle files).
func Of(p string) (Ref, bool) {
	p = strings.TrimSuffix(p, ErrSuffix)
	name := p
	if rest, ok := strings.CutPrefix(p, "nodes/"); ok {
		_, name, _ = strings.Cut(rest, "/")
	}
	for _, k := range All() {
		m := k.Meta()
		if m.Name == name && (m.Scope == Node) == (name != p) {
			return k, true
		}
	}
	return nil, false
}
