package evidence

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"
)

// Tree is evidence gathered in memory, safe for concurrent writers (one per node).
type Tree struct {
	mu    sync.Mutex
	files map[string][]byte
	// kids indexes the folders: folder -> name of an entry in it -> how many files are
	// at or below that entry. A lookup of a missing file, or a listing of one node's
	// folder, then costs what that folder holds, not a scan of the whole fleet's files
	// (which made judging each node cost more the bigger the fleet).
	kids map[string]map[string]int
	memo *Memo
	// intake, when set, is applied to every file as it is stored: the redactor, so
	// every reader (probes, excerpts, reports, bundles, the screen) sees the evidence
	// redacted once, as it entered.
	intake func(path string, b []byte) []byte
}

// NewTree makes an empty tree.
func NewTree() *Tree {
	return &Tree{files: map[string][]byte{}, kids: map[string]map[string]int{}, memo: NewMemo()}
}

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
	t.put(p, b)
}

// put stores a file with t.mu held.
func (t *Tree) put(p string, b []byte) {
	if _, ok := t.files[p]; !ok {
		t.index(p, 1)
	}
	t.files[p] = b
	t.memo.Forget(p)
}

// del removes a file with t.mu held.
func (t *Tree) del(p string) {
	if _, ok := t.files[p]; ok {
		t.index(p, -1)
		delete(t.files, p)
	}
	t.memo.Forget(p)
}

// index counts a file in (d 1) or out of (d -1) every folder above it.
func (t *Tree) index(p string, d int) {
	for p != "." && p != "" {
		dir, name := path.Dir(p), path.Base(p)
		m := t.kids[dir]
		if m == nil {
			m = map[string]int{}
			t.kids[dir] = m
		}
		if m[name] += d; m[name] <= 0 {
			delete(m, name)
			if len(m) == 0 {
				delete(t.kids, dir)
			}
		}
		p = dir
	}
}

// below lists the files under folder dir, from the index, with t.mu held.
func (t *Tree) below(dir string) []string {
	var out []string
	for name := range t.kids[dir] {
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		if _, ok := t.files[p]; ok {
			out = append(out, p)
		}
		if len(t.kids[p]) > 0 {
			out = append(out, t.below(p)...)
		}
	}
	return out
}

// dir is the open folder name, from the index, with t.mu held; nil when there is none.
func (t *Tree) dir(name string) *memDir {
	kids := t.kids[name]
	if len(kids) == 0 && name != "." {
		return nil
	}
	d := &memDir{name: name, entries: make([]fs.DirEntry, 0, len(kids))}
	for k := range kids {
		p := k
		if name != "." {
			p = name + "/" + k
		}
		b, isFile := t.files[p]
		d.entries = append(d.entries, fs.FileInfoToDirEntry(memInfo{name: k, size: int64(len(b)), dir: !isFile}))
	}
	sort.Slice(d.entries, func(i, j int) bool { return d.entries[i].Name() < d.entries[j].Name() })
	return d
}

// PutAll stores several files under a prefix ("nodes/win-1").
func (t *Tree) PutAll(prefix string, files map[string][]byte) {
	files = t.inAll(prefix, files)
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, b := range files {
		t.put(prefix+"/"+name, b)
	}
}

// Replace deletes the stale paths and stores files under prefix in one step, so a reader
// judging the node meanwhile sees the old set or the new one, never a mix with holes.
func (t *Tree) Replace(prefix string, stale []string, files map[string][]byte) {
	files = t.inAll(prefix, files)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range stale {
		t.del(p)
	}
	for name, b := range files {
		t.put(prefix+"/"+name, b)
	}
}

// Remove deletes every file under a prefix (before re-collecting a node).
func (t *Tree) Remove(prefix string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.below(prefix) {
		t.del(p)
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

// Stat answers from the index: a missing file is two map lookups, not a scan.
func (v treeView) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if b, ok := v.t.files[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(b))}, nil
	}
	if name == "." || len(v.t.kids[name]) > 0 {
		return memInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// Open serves a file directly and a folder as its entries, from the index.
func (v treeView) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if b, ok := v.t.files[name]; ok {
		return newMemFile(name, b), nil
	}
	if d := v.t.dir(name); d != nil {
		return d, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
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
		t.del(p)
	}
}
