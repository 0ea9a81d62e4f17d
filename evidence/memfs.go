package evidence

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// The tree serves itself as an fs.FS with these few types rather than testing/fstest's
// MapFS, so that the product links no testing package. Files are served as they were put
// (never changed in place), folders as the sorted names below them.

// memFile is an open evidence file.
type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func newMemFile(name string, b []byte) *memFile {
	return &memFile{name: name, r: bytes.NewReader(b), size: int64(len(b))}
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	return memInfo{name: path.Base(f.name), size: f.size}, nil
}
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	return f.r.ReadAt(p, off)
}
func (f *memFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *memFile) Close() error                              { return nil }

// memDir is an open folder: its direct entries, read in order.
type memDir struct {
	name    string
	entries []fs.DirEntry
	off     int
}

func (d *memDir) Stat() (fs.FileInfo, error) {
	return memInfo{name: path.Base(d.name), dir: true}, nil
}
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

// ReadDir follows fs.ReadDirFile: n <= 0 returns the rest, n > 0 at most n and io.EOF at the end.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
}

// memInfo describes a file or folder of the tree. Times are the zero Unix time, so a tree
// written out (a bundle, a folder) is the same bytes every time.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

// FilesFS serves files (path -> bytes) as an fs.FS, with the given folders present even
// when empty (a node's folder an import made for a node it holds nothing of). It is the
// product's in-memory folder, in place of testing/fstest's MapFS.
func FilesFS(files map[string][]byte, dirs ...string) fs.FS {
	m := mapFS{files: files, dirs: map[string]bool{}}
	for _, d := range dirs {
		for d = path.Clean(d); d != "." && d != "/"; d = path.Dir(d) {
			m.dirs[d] = true
		}
	}
	return m
}

type mapFS struct {
	files map[string][]byte
	dirs  map[string]bool
}

func (m mapFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := m.files[name]; ok {
		return newMemFile(name, b), nil
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	for p, b := range m.files {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			if child, _, isDir := strings.Cut(rest, "/"); isDir {
				seen[child] = fs.FileInfoToDirEntry(memInfo{name: child, dir: true})
			} else {
				seen[child] = fs.FileInfoToDirEntry(memInfo{name: child, size: int64(len(b))})
			}
		}
	}
	for dir := range m.dirs {
		if rest, ok := strings.CutPrefix(dir, prefix); ok && rest != "" && !strings.Contains(rest, "/") && seen[rest] == nil {
			seen[rest] = fs.FileInfoToDirEntry(memInfo{name: rest, dir: true})
		}
	}
	d := &memDir{name: name, entries: make([]fs.DirEntry, 0, len(seen))}
	for _, e := range seen {
		d.entries = append(d.entries, e)
	}
	sort.Slice(d.entries, func(i, j int) bool { return d.entries[i].Name() < d.entries[j].Name() })
	if len(d.entries) == 0 && name != "." && !m.dirs[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return d, nil
}
