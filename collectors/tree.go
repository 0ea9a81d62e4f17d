package collectors

import (
	"io/fs"
	"sort"
	"sync"
	"testing/fstest"
	"time"
)

// Tree is evidence gathered in memory, safe for concurrent writers (one per node).
type Tree struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewTree makes an empty tree.
func NewTree() *Tree { return &Tree{files: map[string][]byte{}} }

// Put stores a file, replacing any earlier one at that path.
func (t *Tree) Put(p string, b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files[p] = b
}

// PutAll stores several files under a prefix ("nodes/win-1").
func (t *Tree) PutAll(prefix string, files map[string][]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, b := range files {
		t.files[prefix+"/"+name] = b
	}
}

// Remove deletes every file under a prefix (before re-collecting a node).
func (t *Tree) Remove(prefix string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.files {
		if len(p) > len(prefix) && p[:len(prefix)+1] == prefix+"/" {
			delete(t.files, p)
		}
	}
}

// Paths lists the stored paths, sorted.
func (t *Tree) Paths() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.files))
	for p := range t.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Evidence is a consistent snapshot to judge.
func (t *Tree) Evidence() Evidence {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := make(fstest.MapFS, len(t.files))
	for p, b := range t.files {
		m[p] = &fstest.MapFile{Data: b, Mode: 0o644, ModTime: time.Unix(0, 0)}
	}
	return Evidence{FS: m}
}

// CopyFrom loads every file of an evidence FS into the tree (a folder or a bundle).
func (t *Tree) CopyFrom(fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		t.Put(p, b)
		return nil
	})
}

// Delete removes files by exact path.
func (t *Tree) Delete(paths ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		delete(t.files, p)
	}
}
