package bundle

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// FS is the bundle's files (manifest.json excluded) as a read-only fs.FS, which is what
// evidence.Evidence reads. A file kept in memory is served from there; a large one
// from the spill file, written as the bundle was verified.
func (b *Bundle) FS() fs.FS { return bundleFS{b} }

type bundleFS struct{ b *Bundle }

func (f bundleFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	b := f.b
	b.mu.Lock()
	files := b.files
	b.mu.Unlock()
	if files == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrClosed}
	}
	if e, ok := files[name]; ok {
		if e.refused != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: e.refused}
		}
		inf := fileInfo{name: path.Base(name), size: e.served(), mtime: e.mtime}
		if e.data != nil {
			data := e.data
			if e.tail > 0 {
				cut := int64(len(data)) - e.tail
				data = append([]byte(tailMarker(cut, e.tail)), data[cut:]...)
			}
			return &memFile{Reader: bytes.NewReader(data), info: inf}, nil
		}
		b.mu.Lock()
		spill := b.spill
		b.mu.Unlock()
		var r io.Reader = io.NewSectionReader(spill, e.off, e.size)
		if e.tail > 0 {
			cut := e.size - e.tail
			r = io.MultiReader(strings.NewReader(tailMarker(cut, e.tail)), io.NewSectionReader(spill, e.off+cut, e.tail))
		}
		return &spillFile{r: r, info: inf}, nil
	}
	if kids, ok := b.dirs[name]; ok {
		return &dirFile{files: files, name: name, kids: kids}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat describes a file without opening it, so a refused file still exists for
// Evidence.Has: reading it is what fails, with the reason.
func (f bundleFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	b := f.b
	b.mu.Lock()
	files := b.files
	b.mu.Unlock()
	if files == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrClosed}
	}
	if e, ok := files[name]; ok {
		return fileInfo{name: path.Base(name), size: e.served(), mtime: e.mtime}, nil
	}
	if _, ok := b.dirs[name]; ok {
		return fileInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// served is the size a reader of the file gets: the tail and its marker line for a
// log over the cap.
func (e *entry) served() int64 {
	if e.tail > 0 {
		return int64(len(tailMarker(e.size-e.tail, e.tail))) + e.tail
	}
	return e.size
}

type fileInfo struct {
	name  string
	size  int64
	dir   bool
	mtime time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) ModTime() time.Time { return i.mtime }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

type memFile struct {
	*bytes.Reader
	info fileInfo
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Close() error               { return nil }

// spillFile is a file read from the spill file.
type spillFile struct {
	r    io.Reader
	info fileInfo
}

func (s *spillFile) Read(p []byte) (int, error) { return s.r.Read(p) }
func (s *spillFile) Stat() (fs.FileInfo, error) { return s.info, nil }
func (s *spillFile) Close() error               { return nil }

type dirFile struct {
	files map[string]*entry
	name  string
	kids  []string
	off   int
}

func (d *dirFile) Stat() (fs.FileInfo, error) {
	return fileInfo{name: path.Base(d.name), dir: true}, nil
}
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.kids[d.off:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	out := make([]fs.DirEntry, 0, len(rest))
	for _, k := range rest {
		p := path.Join(d.name, k)
		inf := fileInfo{name: k, dir: true}
		if e, ok := d.files[p]; ok {
			inf = fileInfo{name: k, size: e.size, mtime: e.mtime}
		}
		out = append(out, fs.FileInfoToDirEntry(inf))
	}
	d.off += len(rest)
	return out, nil
}
