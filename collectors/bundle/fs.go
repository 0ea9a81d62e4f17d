package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/klauspost/compress/gzip"
)

// FS is the bundle's files (manifest.json excluded) as a read-only fs.FS, which is what
// collectors.Evidence reads. A file kept in memory is served from there; a large one is
// decompressed again from the bundle file and re-verified against its checksum as it
// is read.
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
		return &lazyFile{bundle: b.path, e: e, info: inf}, nil
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

// lazyFile finds its entry in the bundle on the first Read.
type lazyFile struct {
	bundle string
	e      *entry
	info   fileInfo
	f      *os.File
	r      io.Reader
	h      hash.Hash
	n      int64
	pre    []byte // served before r: the tail marker
}

func (l *lazyFile) Stat() (fs.FileInfo, error) { return l.info, nil }

func (l *lazyFile) Read(p []byte) (int, error) {
	if l.r == nil {
		if err := l.seek(); err != nil {
			return 0, &fs.PathError{Op: "read", Path: l.e.name, Err: err}
		}
		if l.e.tail > 0 {
			// Hash the head without keeping it: the checksum covers the whole entry.
			cut := l.e.size - l.e.tail
			k, err := io.CopyN(l.h, l.r, cut)
			l.n += k
			if err != nil {
				return 0, &fs.PathError{Op: "read", Path: l.e.name, Err: err}
			}
			l.pre = []byte(tailMarker(cut, l.e.tail))
		}
	}
	if len(l.pre) > 0 {
		n := copy(p, l.pre)
		l.pre = l.pre[n:]
		return n, nil
	}
	n, err := l.r.Read(p)
	l.h.Write(p[:n])
	l.n += int64(n)
	if err == io.EOF && (l.n != l.e.size || hex.EncodeToString(l.h.Sum(nil)) != l.e.sha) {
		// The bundle file changed since it was opened and verified.
		err = &VerifyError{Kind: Tampered, Entry: l.e.name, Detail: "checksum mismatch (changed since the bundle was opened)"}
	}
	return n, err
}

func (l *lazyFile) seek() error {
	f, err := os.Open(l.bundle)
	if err != nil {
		return err
	}
	l.f = f
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return streamErr(err, "in the gzip header")
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err != nil {
			return fmt.Errorf("%s is no longer in the bundle: %w", l.e.name, err)
		}
		if name, _ := cleanEntry(hdr.Name); name == l.e.name && hdr.Typeflag != tar.TypeDir {
			l.r, l.h = tr, sha256.New()
			return nil
		}
	}
}

func (l *lazyFile) Close() error {
	if l.f != nil {
		return l.f.Close()
	}
	return nil
}

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
