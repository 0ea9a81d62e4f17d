package redact

import (
	"bytes"
	"io/fs"
	"path"
	"sync"
)

// Intake redacts one evidence file as it enters the tool, by its path: its name chooses
// JSON (by value) or text. It has the signature evidence.Tree.SetIntake takes, so a live
// run's tree holds only redacted evidence and every consumer reads that. What it
// replaced is recorded under the full path, which a bundle written with the same
// Redactor counts in its manifest.
func (r *Redactor) Intake(p string, b []byte) []byte {
	out, counts := r.bytesOf(path.Base(p), b)
	r.Record(p, counts)
	return out
}

// FS is fsys with every file redacted as it is first read (and kept so: probes read a
// file many times): a folder or bundle of evidence someone else collected, read by every
// consumer redacted, as a live run's tree is. Folders pass through; a file's size is
// that of its redacted bytes.
func (r *Redactor) FS(fsys fs.FS) fs.FS {
	return &redactedFS{fsys: fsys, r: r, done: map[string][]byte{}}
}

type redactedFS struct {
	fsys fs.FS
	r    *Redactor
	mu   sync.Mutex
	done map[string][]byte
}

// ReadFile is the fast path fs.ReadFile takes.
func (f *redactedFS) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	b, ok := f.done[name]
	f.mu.Unlock()
	if ok {
		return b, nil
	}
	raw, err := fs.ReadFile(f.fsys, name)
	if err != nil {
		return nil, err
	}
	b = f.r.Intake(name, raw)
	f.mu.Lock()
	f.done[name] = b
	f.mu.Unlock()
	return b, nil
}

func (f *redactedFS) Open(name string) (fs.File, error) {
	file, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := file.Stat()
	if err != nil || st.IsDir() {
		return file, err
	}
	file.Close()
	b, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &redactedFile{Reader: bytes.NewReader(b), info: redactedInfo{FileInfo: st, size: int64(len(b))}}, nil
}

type redactedFile struct {
	*bytes.Reader
	info redactedInfo
}

func (f *redactedFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *redactedFile) Close() error               { return nil }

type redactedInfo struct {
	fs.FileInfo
	size int64
}

func (i redactedInfo) Size() int64 { return i.size }
