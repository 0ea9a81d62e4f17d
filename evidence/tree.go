package evidence

import (
	"fmt"
	"io/fs"
	"sort"
	"sync"
)

// Tree is evidence gathered in memory, safe for concurrent writers (one per node).
type Tree struct {
	mu    sync.Mutex
	files map[string][]byte
	memo  *Memo
	// intake, when set, is applied to every file as it is stored: the redactor, so
	// every reader (probes, excerpts, reports, bundles, the screen) sees the evidence
	// redacted once, as it entered.
	intake func(path string, b []byte) []byte
}

// NewTree makes an empty tree.
func NewTree() *Tree { return &Tree{files: map[string][]byte{}, memo: NewMemo()} }

// SetIntake makes every file stored from now on pass through f (path, bytes) first; set
// it before the tree is shared.
func (t *Tree) SetIntake(f func(path string, b []byte) []byte) { t.intake = f }

// in is b as the tree keeps it: through the intake, outside the lock (redacting a large
// log takes a while, and other nodes' writers must not wait for it).
func (t *Tree) in(p string, b []byte) []byte {
	if t.intake == nil {
		return b
	}
	return t.intake(p, b)
}

func (t *Tree) inAll(prefix string, files map[string][]byte) map[string][]byte {
	if t.intake == nil {
		return files
	}
	out := make(map[string][]byte, len(files))
	for name, b := range files {
		out[name] = t.intake(prefix+"/"+name, b)
	}
	return out
}

// Put stores a file, replacing any earlier one at that path.
func (t *Tree) Put(p string, b []byte) {
	b = t.in(p, b)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files[p] = b
	t.memo.Forget(p)
}

// PutAll stores several files under a prefix ("nodes/win-1").
func (t *Tree) PutAll(prefix string, files map[string][]byte) {
	files = t.inAll(prefix, files)
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, b := range files {
		t.files[prefix+"/"+name] = b
		t.memo.Forget(prefix + "/" + name)
	}
}

// Replace deletes the stale paths and stores files under prefix in one step, so a reader
// judging the node meanwhile sees the old set or the new one, never a mix with holes.
func (t *Tree) Replace(prefix string, stale []string, files map[string][]byte) {
	files = t.inAll(prefix, files)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range stale {
		delete(t.files, p)
		t.memo.Forget(p)
	}
	for name, b := range files {
		t.files[prefix+"/"+name] = b
		t.memo.Forget(prefix + "/" + name)
	}
}

// Remove deletes every file under a prefix (before re-collecting a node).
func (t *Tree) Remove(prefix string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.files {
		if len(p) > len(prefix) && p[:len(prefix)+1] == prefix+"/" {
			delete(t.files, p)
			t.memo.Forget(p)
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

// Evidence is a view to judge. It reads the tree as it is (no copy: a fleet of nodes
// judged one by one would otherwise copy the whole tree per node); files are replaced
// whole, never changed in place, so a reader sees a file as it was put.
func (t *Tree) Evidence() Evidence { return Evidence{FS: treeView{t}, Memo: t.memo} }

// treeView is the tree as an fs.FS, with the fast paths fs.ReadFile and fs.Stat use.
type treeView struct{ t *Tree }

func (v treeView) ReadFile(name string) ([]byte, error) {
	v.t.mu.Lock()
	b, ok := v.t.files[name]
	v.t.mu.Unlock()
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return b, nil
}

func (v treeView) Stat(name string) (fs.FileInfo, error) {
	f, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// Open serves a file directly and a folder through a map of just its subtree.
func (v treeView) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if b, ok := v.t.files[name]; ok {
		return newMemFile(name, b), nil
	}
	d := newMemDir(name, v.t.files)
	if len(d.entries) == 0 && name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return d, nil
}

// CopyFrom loads the files of an evidence FS into the tree under the same paths: all of
// them, or only those below the given folders ("cluster", "nodes/win-1").
func (t *Tree) CopyFrom(fsys fs.FS, dirs ...string) error {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, dir := range dirs {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
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
		if err != nil {
			return fmt.Errorf("loading evidence from %s: %w", dir, err)
		}
	}
	return nil
}

// Delete removes files by exact path.
func (t *Tree) Delete(paths ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		delete(t.files, p)
		t.memo.Forget(p)
	}
}
