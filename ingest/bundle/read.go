package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Files up to smallFile are kept in memory, up to memBudget in all; the others are
// written, decompressed, to one temporary spill file as the bundle is verified, and read
// from there (reading them again from the bundle would decompress it from the start for
// each file: quadratic time on a bundle of many files). Limits bound the rest.
const (
	smallFile = 1 << 20
	memBudget = 32 << 20
)

// Bundle is a verified bundle: its manifest and its files as an fs.FS.
type Bundle struct {
	path     string
	manifest *Manifest
	mu       sync.Mutex
	files    map[string]*entry // nil once closed
	dirs     map[string][]string
	lim      Limits
	spill    *os.File // files not kept in memory, decompressed; nil until needed
	spillBuf *bufio.Writer
	spillLen int64
}

type entry struct {
	name  string
	size  int64
	sha   string
	mtime time.Time
	data  []byte // nil: at off in the spill file
	off   int64
	// refused: over its kind's cap, never read; opening it gives this error.
	refused *LimitError
	// tail: a log larger than the cap is served as its last tail bytes (0: whole).
	tail int64
}

// Open reads and verifies a bundle (see OpenContext).
func Open(path string) (*Bundle, error) { return OpenContext(context.Background(), path) }

// OpenContext is OpenLimits with DefaultLimits.
func OpenContext(ctx context.Context, path string) (*Bundle, error) {
	return OpenLimits(ctx, path, DefaultLimits())
}

// OpenLimits reads and verifies a bundle before handing out a byte: the gzip and tar
// streams are complete and well-formed, manifest.json is present in a known format, every
// entry's size and sha256 match the manifest and the manifest lists no more and no
// fewer files, and no entry escapes the root (../, absolute paths), is a link, a device
// or a sparse file, or repeats. A refusal is a *VerifyError saying which.
//
// lim bounds the cost: each tar header is checked (name length and depth, declared
// size, running total, node folders and their names) before its entry is read, so a
// hostile bundle is refused after reading little more than its headers. An evidence
// file over its kind's cap is not read: the bundle opens, and that one file fails to
// open with a *LimitError; logs over the cap are served as their tail. Memory stays
// under memBudget for the files kept whole plus a few buffers, whatever the bundle.
func OpenLimits(ctx context.Context, path string, lim Limits) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening bundle: %w", err)
	}
	defer f.Close()
	b := &Bundle{path: path, files: map[string]*entry{}, lim: lim}
	mb, err := b.scan(ctx, f)
	if err == nil {
		err = b.verify(mb)
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("opening bundle %s: %w", path, err)
	}
	return b, nil
}

// Manifest is the bundle's manifest.json.
func (b *Bundle) Manifest() *Manifest { return b.manifest }

// Path is where the bundle was opened from.
func (b *Bundle) Path() string { return b.path }

// Close releases the files held in memory and removes the spill file; the FS fails
// afterwards.
func (b *Bundle) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files = nil
	if b.spill == nil {
		return nil
	}
	err := b.spill.Close()
	os.Remove(b.spill.Name()) // removed at creation already, except on Windows
	b.spill = nil
	return err
}

// spillWriter returns the spill file's writer, creating the file on first use. Outside
// Windows the file is unlinked at once, so nothing is left behind even by a crash.
func (b *Bundle) spillWriter() (io.Writer, error) {
	if b.spillBuf != nil {
		return b.spillBuf, nil
	}
	f, err := os.CreateTemp("", "wintroubleshoot-bundle-*.spill")
	if err != nil {
		return nil, fmt.Errorf("making a spill file for the bundle's large files: %w", err)
	}
	if runtime.GOOS != "windows" {
		os.Remove(f.Name())
	}
	b.spill, b.spillBuf = f, bufio.NewWriterSize(f, 256<<10)
	return b.spillBuf, nil
}

// scanState is what one pass over the stream has counted so far.
type scanState struct {
	tr       *tar.Reader
	manifest []byte
	dirs     map[string]bool
	budget   int64 // bytes small files may still keep in memory
	total    int64 // uncompressed bytes declared so far
	count    int   // entries so far
	nodes    nodeCounter
}

// scan reads the whole stream once, hashing every entry, and returns the manifest bytes.
func (b *Bundle) scan(ctx context.Context, f io.Reader) ([]byte, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return nil, streamErr(err, "in the gzip header")
	}
	st := &scanState{tr: tar.NewReader(zr), dirs: map[string]bool{}, budget: int64(memBudget), nodes: nodeCounter{max: b.lim.MaxNodes}}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := st.tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return nil, streamErr(err, fmt.Sprintf("after %d entries", st.count))
		}
		name, err := b.admit(st, hdr)
		if err != nil {
			return nil, err
		}
		if name == "" {
			continue
		}
		if err := b.readEntry(st, hdr, name); err != nil {
			return nil, err
		}
	}
	if err := b.finishStream(st, zr); err != nil {
		return nil, err
	}
	return st.manifest, b.index(st.dirs)
}

// admit checks one header against the limits and the bundle's rules (names, types,
// duplicates, sizes) and returns the clean name of a file to read, or "" for an entry
// that holds no file (the root, a directory, pax metadata).
func (b *Bundle) admit(st *scanState, hdr *tar.Header) (string, error) {
	if st.count++; st.count > b.lim.MaxEntries {
		return "", &VerifyError{Kind: TooLarge, Detail: fmt.Sprintf("more than %d entries", b.lim.MaxEntries)}
	}
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return "", nil // pax metadata for the archive (git archive writes one), not a file
	}
	if err := b.lim.checkName(hdr.Name); err != nil {
		return "", err
	}
	if err := entryType(hdr); err != nil {
		return "", err
	}
	name, err := cleanEntry(hdr.Name)
	if err != nil || name == "" {
		return "", err // "" is "./", the root itself
	}
	if _, dup := b.files[name]; dup || st.dirs[name] || name == evidence.BundleManifest && st.manifest != nil {
		return "", &VerifyError{Kind: Unsafe, Entry: hdr.Name, Detail: "duplicate entry"}
	}
	if err := st.nodes.add(name, hdr.Typeflag == tar.TypeDir); err != nil {
		return "", err
	}
	if hdr.Typeflag == tar.TypeDir {
		st.dirs[name] = true
		return "", nil
	}
	if hdr.Size > b.lim.MaxEntry {
		return "", &VerifyError{Kind: TooLarge, Entry: name, Detail: fmt.Sprintf("declares %d bytes; no evidence file may be larger than %d", hdr.Size, b.lim.MaxEntry)}
	}
	if st.total += hdr.Size; st.total > b.lim.MaxTotal {
		return "", &VerifyError{Kind: TooLarge, Detail: fmt.Sprintf("more than %d bytes uncompressed", b.lim.MaxTotal)}
	}
	return name, nil
}

// readEntry reads one file: the manifest into memory, a file over its kind's limit not at
// all (refused, or only its tail kept for a log), a small one into memory while the budget
// lasts, the rest into the spill file; each hashed on the way.
func (b *Bundle) readEntry(st *scanState, hdr *tar.Header, name string) error {
	var err error
	if name == evidence.BundleManifest {
		if hdr.Size > b.lim.MaxManifest {
			return &VerifyError{Kind: TooLarge, Entry: name, Detail: fmt.Sprintf("%d bytes", hdr.Size)}
		}
		if st.manifest, err = io.ReadAll(st.tr); err != nil {
			return streamErr(err, "inside "+name)
		}
		return nil
	}
	e := &entry{name: name, mtime: hdr.ModTime, size: hdr.Size}
	kind, limit := b.lim.kindOf(name)
	switch {
	case kind != kindLog && hdr.Size > limit:
		what := "JSON"
		if kind == kindText {
			what = "text"
		}
		e.refused = &LimitError{Path: name, Size: hdr.Size, Limit: limit, What: what}
		b.files[name] = e
		return nil // never read: tar.Next skips it
	case kind == kindLog && hdr.Size > limit:
		e.tail = limit
	}
	h := sha256.New()
	var w io.Writer = h
	var buf *bytes.Buffer
	if hdr.Size <= smallFile && hdr.Size <= st.budget {
		buf = bytes.NewBuffer(make([]byte, 0, hdr.Size))
		w = io.MultiWriter(h, buf)
		st.budget -= hdr.Size
	} else {
		sw, err := b.spillWriter()
		if err != nil {
			return err
		}
		e.off, w = b.spillLen, io.MultiWriter(h, sw)
	}
	if e.size, err = io.Copy(w, st.tr); err != nil {
		return streamErr(err, "inside "+name)
	}
	if buf != nil {
		e.data = buf.Bytes()
	} else {
		b.spillLen += e.size
	}
	e.sha = hex.EncodeToString(h.Sum(nil))
	b.files[name] = e
	return nil
}

// finishStream flushes the spill file and reads to the end of the gzip stream, which
// checks its CRC and length; what follows the tar stream counts against the total too (a
// bomb after the last entry).
func (b *Bundle) finishStream(st *scanState, zr io.Reader) error {
	if b.spillBuf != nil {
		if err := b.spillBuf.Flush(); err != nil {
			return fmt.Errorf("writing the spill file: %w", err)
		}
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, b.lim.MaxTotal-st.total+1))
	if err != nil {
		return streamErr(err, "after the last entry")
	}
	if st.total+n > b.lim.MaxTotal {
		return &VerifyError{Kind: TooLarge, Detail: fmt.Sprintf("more than %d bytes uncompressed (after the last entry)", b.lim.MaxTotal)}
	}
	return nil
}

// index builds the directory listing and refuses a name that is both file and directory.
func (b *Bundle) index(dirs map[string]bool) error {
	children := map[string]map[string]bool{".": {}}
	add := func(p string) {
		parent := path.Dir(p)
		if children[parent] == nil {
			children[parent] = map[string]bool{}
		}
		children[parent][path.Base(p)] = true
	}
	for d := range dirs {
		if _, isFile := b.files[d]; isFile {
			return &VerifyError{Kind: Unsafe, Entry: d, Detail: "is both a file and a directory"}
		}
		for p := d; p != "."; p = path.Dir(p) {
			add(p)
		}
		if children[d] == nil {
			children[d] = map[string]bool{}
		}
	}
	for name := range b.files {
		add(name)
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if _, isFile := b.files[d]; isFile {
				return &VerifyError{Kind: Unsafe, Entry: d, Detail: "is both a file and a directory"}
			}
			add(d)
		}
	}
	b.dirs = map[string][]string{}
	for d, kids := range children {
		names := make([]string, 0, len(kids))
		for k := range kids {
			names = append(names, k)
		}
		sort.Strings(names)
		b.dirs[d] = names
	}
	return nil
}

// verify checks the manifest against the entries read.
func (b *Bundle) verify(raw []byte) error {
	if raw == nil {
		return &VerifyError{Kind: BadManifest, Detail: "no manifest.json: not a wintroubleshoot bundle, or cut short"}
	}
	var head struct {
		FormatVersion *int `json:"formatVersion"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return &VerifyError{Kind: BadManifest, Detail: fmt.Sprintf("manifest.json is not JSON: %v", err)}
	}
	if head.FormatVersion == nil {
		return &VerifyError{Kind: BadManifest, Detail: "manifest.json has no formatVersion"}
	}
	if v := *head.FormatVersion; v != FormatVersion {
		return &VerifyError{Kind: BadManifest, Detail: fmt.Sprintf("format version %d is not supported (this build reads version %d); was it written by a newer wintroubleshoot?", v, FormatVersion)}
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return &VerifyError{Kind: BadManifest, Detail: fmt.Sprintf("manifest.json: %v", err)}
	}
	listed := map[string]bool{}
	for _, it := range m.Items {
		if listed[it.Path] {
			return &VerifyError{Kind: BadManifest, Entry: it.Path, Detail: "listed twice in manifest.json"}
		}
		listed[it.Path] = true
		e, ok := b.files[it.Path]
		switch {
		case !it.present() && ok:
			return &VerifyError{Kind: Tampered, Entry: it.Path, Detail: "is in the bundle, but the manifest says it was not collected"}
		case !it.present():
		case !ok:
			return &VerifyError{Kind: Tampered, Entry: it.Path, Detail: "is listed in the manifest but missing from the bundle"}
		case e.size != it.Size:
			return &VerifyError{Kind: Tampered, Entry: it.Path, Detail: fmt.Sprintf("size %d, the manifest says %d", e.size, it.Size)}
		case e.refused == nil && e.sha != it.SHA256:
			return &VerifyError{Kind: Tampered, Entry: it.Path, Detail: "checksum mismatch"}
		}
	}
	names := make([]string, 0, len(b.files))
	for name := range b.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !listed[name] {
			return &VerifyError{Kind: Tampered, Entry: name, Detail: "is not listed in the manifest"}
		}
	}
	if m.Nodes == nil {
		m.Nodes = map[string]Node{}
	}
	b.manifest = &m
	return nil
}
