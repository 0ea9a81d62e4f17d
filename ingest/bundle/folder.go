package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// Folder is an evidence folder opened for analysis (analyze DIR), confined to itself:
// it is an os.Root, so no path and no symbolic link can lead out of it (a host.json
// linking to ~/.kube/config is refused, not read), and each file is capped by its kind
// as in a bundle (Limits).
type Folder struct {
	dir  string
	root *os.Root
	lim  Limits
}

// OpenFolder opens dir with DefaultLimits.
func OpenFolder(dir string) (*Folder, error) { return OpenFolderLimits(dir, DefaultLimits()) }

// OpenFolderLimits opens an evidence folder. The node folders under nodes/ are checked
// first: each must be named like a Kubernetes node, and there may be at most
// lim.MaxNodes of them.
func OpenFolderLimits(dir string, lim Limits) (*Folder, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening evidence folder: %w", err)
	}
	f := &Folder{dir: dir, root: root, lim: lim}
	if err := f.checkNodes(); err != nil {
		root.Close()
		return nil, fmt.Errorf("opening evidence folder %s: %w", dir, err)
	}
	return f, nil
}

func (f *Folder) checkNodes() error {
	d, err := f.root.Open("nodes")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading nodes/: %w", leaves("nodes", err))
	}
	defer d.Close()
	for n := 0; ; {
		batch, err := d.ReadDir(1024)
		for _, e := range batch {
			if !e.IsDir() {
				continue
			}
			if err := CheckNodeName(e.Name()); err != nil {
				return err
			}
			if n++; n > f.lim.MaxNodes {
				return &VerifyError{Kind: TooLarge, Detail: fmt.Sprintf("more than %d node folders", f.lim.MaxNodes)}
			}
		}
		if err == io.EOF || len(batch) == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading nodes/: %w", err)
		}
	}
}

// Close releases the folder.
func (f *Folder) Close() error { return f.root.Close() }

// Dir is the folder's path.
func (f *Folder) Dir() string { return f.dir }

// FS is the folder as an fs.FS that fs.ReadFile cannot make exceed the caps: JSON and
// other structured files over their cap fail to open with a *LimitError, logs over it
// are served as their tail, and special files (pipes, devices) are refused.
func (f *Folder) FS() fs.FS { return folderFS{f} }

type folderFS struct{ f *Folder }

// leaves explains os.Root's refusal of a path that leads out of the folder; the
// refusal itself does not depend on recognising the error.
func leaves(name string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return &fs.PathError{Op: "open", Path: name, Err: errors.New("refused: a link on this path leads out of the evidence folder")}
	}
	return err
}

func (ff folderFS) check(op, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if err := ff.f.lim.checkName(name); err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	st, err := ff.f.root.Stat(name)
	if err != nil {
		return nil, leaves(name, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("refused: a %s, not a regular file", typeName(st.Mode()))}
	}
	return st, nil
}

// Stat keeps a refused file visible (Evidence.Has); reading it says why it is refused.
func (ff folderFS) Stat(name string) (fs.FileInfo, error) {
	st, err := ff.check("stat", name)
	if err != nil || st.IsDir() {
		return st, err
	}
	if kind, limit := ff.f.lim.kindOf(name); kind == kindLog && st.Size() > limit {
		return sizedInfo{st, int64(len(tailMarker(st.Size()-limit, limit))) + limit}, nil
	}
	return st, nil
}

func (ff folderFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if _, err := ff.check("readdir", name); err != nil {
		return nil, err
	}
	return fs.ReadDir(ff.f.root.FS(), name)
}

func (ff folderFS) Open(name string) (fs.File, error) {
	st, err := ff.check("open", name)
	if err != nil {
		return nil, err
	}
	kind, limit := ff.f.lim.kindOf(name)
	if !st.IsDir() && kind != kindLog && st.Size() > limit {
		what := "JSON"
		if kind == kindText {
			what = "text"
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: &LimitError{Path: name, Size: st.Size(), Limit: limit, What: what}}
	}
	file, err := ff.f.root.Open(name)
	if err != nil {
		return nil, leaves(name, err)
	}
	st, err = file.Stat() // the file opened, not the one looked at: it may have been swapped
	if err != nil || st.IsDir() {
		return file, err
	}
	if !st.Mode().IsRegular() || kind != kindLog && st.Size() > limit {
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("refused: the file changed while it was opened")}
	}
	size := st.Size()
	cf := &cappedFile{f: file, r: io.LimitReader(file, size), info: st}
	if kind == kindLog && size > limit {
		if _, err := file.Seek(size-limit, io.SeekStart); err != nil {
			file.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		marker := tailMarker(size-limit, limit)
		cf.r = io.MultiReader(strings.NewReader(marker), io.LimitReader(file, limit))
		cf.info = sizedInfo{st, int64(len(marker)) + limit}
	}
	return cf, nil
}

// cappedFile reads no more than the size it was opened with, so a file that grows while
// it is read (a log being written) cannot take more memory than its cap.
type cappedFile struct {
	f    *os.File
	r    io.Reader
	info fs.FileInfo
}

func (c *cappedFile) Read(p []byte) (int, error) { return c.r.Read(p) }
func (c *cappedFile) Stat() (fs.FileInfo, error) { return c.info, nil }
func (c *cappedFile) Close() error               { return c.f.Close() }

// sizedInfo is a FileInfo with the size a reader is served.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (s sizedInfo) Size() int64 { return s.size }

// OpenEvidence opens what analyze is given: a folder (OpenFolder) or a bundle file
// (OpenContext), with DefaultLimits, its files redacted with the default rules as they
// are read (OpenEvidenceRedacted). It returns the evidence, a description of where it
// came from for the report ("folder DIR", "bundle FILE"), and what to close when done.
func OpenEvidence(ctx context.Context, p string) (evidence.Evidence, string, io.Closer, error) {
	return OpenEvidenceRedacted(ctx, p, redact.Default())
}

// OpenEvidenceRedacted is OpenEvidence with every file redacted by red as it is first
// read, so whatever judges, excerpts, pages or copies it reads redacted evidence: a
// customer's folder is raw, and a bundle written with --no-redact too. red nil reads the
// files as they are.
func OpenEvidenceRedacted(ctx context.Context, p string, red *redact.Redactor) (evidence.Evidence, string, io.Closer, error) {
	wrap := func(fsys fs.FS) fs.FS {
		if red == nil {
			return fsys
		}
		return red.FS(fsys)
	}
	st, err := os.Stat(p)
	if err != nil {
		return evidence.Evidence{}, "", nil, fmt.Errorf("opening evidence: %w", err)
	}
	if st.IsDir() {
		f, err := OpenFolder(p)
		if err != nil {
			return evidence.Evidence{}, "", nil, err
		}
		return evidence.Evidence{FS: wrap(f.FS())}, "folder " + p, f, nil
	}
	b, err := OpenContext(ctx, p)
	if err != nil {
		return evidence.Evidence{}, "", nil, err
	}
	return evidence.Evidence{FS: wrap(b.FS())}, "bundle " + p, b, nil
}
