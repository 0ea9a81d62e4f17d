package bundle

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Source is what a bundle is written from: files by slash-separated relative path.
// Open returns the file and its size; it may be called more than once for the same
// path (a large file is read twice when redaction changes it), and the reader may be
// an io.Seeker, which lets a size cap skip to the tail without reading the head.
type Source interface {
	Paths() ([]string, error)
	Open(name string) (io.ReadCloser, int64, error)
}

// DirSource bundles the files under dir, such as a snapshot's spool directory. Only
// regular files are allowed: a symlink could pull in anything on the machine.
func DirSource(dir string) Source { return FSSource(os.DirFS(dir)) }

// TreeSource bundles an in-memory evidence tree.
func TreeSource(t *evidence.Tree) Source { return FSSource(t.Evidence().FS) }

// FSSource bundles the regular files of any fs.FS.
func FSSource(fsys fs.FS) Source { return fsSource{fsys} }

type fsSource struct{ fsys fs.FS }

func (s fsSource) Paths() ([]string, error) {
	var out []string
	err := fs.WalkDir(s.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is a %s; a bundle holds regular files only", p, typeName(d.Type()))
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the files to bundle: %w", err)
	}
	return out, nil
}

func (s fsSource) Open(name string) (io.ReadCloser, int64, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a %s; a bundle holds regular files only", name, typeName(st.Mode()))
	}
	return f, st.Size(), nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}

// sortedPaths lists and checks a source's paths: valid, unique, not reserved, and no
// path both a file and a directory; sorted so bundles are reproducible.
func sortedPaths(src Source) ([]string, error) {
	paths, err := src.Paths()
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	files := make(map[string]bool, len(paths))
	for i, p := range paths {
		switch {
		case !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`):
			return nil, fmt.Errorf("cannot bundle %q: not a clean relative slash-separated path", p)
		case reserved(p):
			return nil, fmt.Errorf("cannot bundle %q: the bundle writes that file itself", p)
		case i > 0 && paths[i-1] == p:
			return nil, fmt.Errorf("cannot bundle %q: listed twice", p)
		}
		files[p] = true
	}
	for _, p := range paths {
		// A reader refuses node folders not named like Kubernetes nodes: never write one.
		if node, ok := nodeFolder(p); ok && path.Dir(p) != "nodes" {
			if err := CheckNodeName(node); err != nil {
				return nil, fmt.Errorf("cannot bundle %q: %w", p, err)
			}
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if files[d] {
				return nil, fmt.Errorf("cannot bundle %q: %q is a file", p, d)
			}
		}
	}
	return paths, nil
}

// capped is a source file opened with the size cap applied.
type capped struct {
	io.Reader
	io.Closer
	size     int64 // bytes the reader yields, marker included
	origSize int64 // the file's size
	cut      int64 // bytes dropped from the start; 0 when the file fits
	tooBig   bool  // not a log and over the cap: left out of the bundle
}

// alignWindow is how far past the cut the reader looks for a newline, so the kept tail
// starts on a whole line (a partial first line could hold half a secret).
const alignWindow = 64 << 10

// openCapped opens a source file, keeping only its last max bytes (max <= 0: all of it),
// starting at a line boundary and preceded by one marker line saying what was cut. A
// file that is not a log (.log, .err) and is over max is not read at all (tooBig).
func openCapped(src Source, name string, max int64) (*capped, error) {
	rc, size, err := src.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	if max <= 0 || size <= max {
		return &capped{Reader: io.LimitReader(rc, size), Closer: rc, size: size, origSize: size}, nil
	}
	if kind, _ := DefaultLimits().kindOf(name); kind != kindLog {
		// Only logs keep their tail: a JSON or TOML file cut short is no longer one.
		rc.Close()
		return &capped{Reader: strings.NewReader(""), Closer: io.NopCloser(nil), origSize: size, tooBig: true}, nil
	}
	cut := size - max
	if s, ok := rc.(io.Seeker); ok {
		_, err = s.Seek(cut, io.SeekStart)
	} else {
		_, err = io.CopyN(io.Discard, rc, cut)
	}
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("skipping to the last %d bytes of %s: %w", max, name, err)
	}
	peek := make([]byte, min(alignWindow, max))
	n, err := io.ReadFull(rc, peek)
	if err != nil && err != io.ErrUnexpectedEOF {
		rc.Close()
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rest := size - cut - int64(n)
	peek = peek[:n]
	if i := bytes.IndexByte(peek, '\n'); i >= 0 {
		cut += int64(i + 1)
		peek = peek[i+1:]
	}
	marker := fmt.Sprintf("[wintroubleshoot: the first %d bytes of this file were cut to keep it under %d bytes]\n", cut, max)
	r := io.MultiReader(strings.NewReader(marker), bytes.NewReader(peek), io.LimitReader(rc, rest))
	return &capped{Reader: r, Closer: rc, size: int64(len(marker)) + size - cut, origSize: size, cut: cut}, nil
}

// Spool copies the files of an evidence tree that pick selects (nil: all) to the same
// paths under dir, so that a snapshot holds no more than one node's output in memory
// and Write(DirSource(dir)) then streams from disk. Folders are 0700 and files 0600:
// evidence is not for other users of the machine. It returns the files and bytes copied.
func Spool(t *evidence.Tree, dir string, pick func(path string) bool) (files int, size int64, err error) {
	ev := t.Evidence()
	err = fs.WalkDir(ev.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || pick != nil && !pick(p) {
			return err
		}
		n, err := spoolFile(ev.FS, p, filepath.Join(dir, filepath.FromSlash(p)))
		files, size = files+1, size+n
		return err
	})
	return files, size, err
}

func spoolFile(fsys fs.FS, p, dst string) (int64, error) {
	in, err := fsys.Open(p)
	if err != nil {
		return 0, fmt.Errorf("spooling %s: %w", p, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, fmt.Errorf("spooling %s: %w", p, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("spooling %s: %w", p, err)
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("spooling %s: %w", p, err)
	}
	return n, nil
}
