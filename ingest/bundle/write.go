package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Options tune Write. The zero value writes a redacted bundle with no size cap.
type Options struct {
	Tool, Version string
	// Time is the snapshot's time: the manifest's "time" and every entry's mtime. The
	// zero value leaves time out of the manifest and dates entries at the Unix epoch.
	Time time.Time
	// Nodes says how each node was reached. Nodes with evidence but no entry here are
	// listed with an empty transport; a nodes/<node>/sweep.err fills in Error.
	Nodes map[string]Node
	// MaxFileSize caps each file: only the last MaxFileSize bytes are kept, from a line
	// boundary on, after one marker line saying how much was cut. 0 means no cap.
	MaxFileSize int64
	// Redact redacts every file (the manifest last: it holds no evidence). nil means
	// NewDefaultRedactor(); NoRedact turns redaction off and the manifest says so.
	Redact   *Redactor
	NoRedact bool
	// Progress, when set, is called after each entry is written.
	Progress func(done, total int, path string)
}

// memLimit is the largest redacted file held in memory between the redacting and the
// compressing goroutine; a larger one is re-read from the source.
const memLimit = 1 << 20

// Write writes a bundle of src to dst, streaming: memory stays flat whatever the size of
// the logs. A JSON file is held whole while it is redacted by value, so memory follows
// the largest one (at most MaxFileSize, when set: a larger JSON file is left out).
// The file appears under dst only when complete (written to a temporary file in the
// same directory, synced, then renamed); on any error no file is left behind.
//
// Two goroutines share the work: one redacts file N+1 while the other compresses file
// N. A tar header needs the size first, so the redacting one runs a file through the
// redactor once; when it changed nothing (almost every log), the file is then copied
// as it is, and when it did, a small file is kept in memory and a large one redacted
// again on the way into the archive.
func Write(ctx context.Context, dst string, src Source, opts Options) (*Manifest, error) {
	return write(ctx, dst, src, opts, nil)
}

// write is Write; prior, when set, is the manifest of the bundle being re-written
// (Redact): its truncation marks and redaction counts carry over.
func write(ctx context.Context, dst string, src Source, opts Options, prior *Manifest) (*Manifest, error) {
	paths, err := sortedPaths(src)
	if err != nil {
		return nil, err
	}
	red := opts.Redact
	if opts.NoRedact {
		red = nil
	} else if red == nil {
		red = NewDefaultRedactor()
	}
	mtime := time.Unix(0, 0).UTC()
	if !opts.Time.IsZero() {
		mtime = opts.Time.UTC().Truncate(time.Second)
	}
	ew := &entryWriter{src: src, red: red, max: opts.MaxFileSize, mtime: mtime, dirs: map[string]bool{},
		errText: map[string]string{}, counts: map[string]map[string]int{}, has: map[string]bool{}}
	for _, p := range paths {
		ew.has[p] = true
	}
	if red != nil {
		ew.intake = map[string]map[string]int{}
		for _, c := range red.Counts() {
			if ew.has[c.File] {
				if ew.intake[c.File] == nil {
					ew.intake[c.File] = map[string]int{}
				}
				ew.intake[c.File][c.Rule] += c.Count
			}
		}
	}
	var m *Manifest
	err = atomicWrite(dst, func(w io.Writer) error {
		zw := newGzip(w)
		ew.tw = tar.NewWriter(zw)
		if err := ew.entries(ctx, paths, opts.Progress); err != nil {
			return err
		}
		m = ew.manifest(opts, prior)
		mb, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding the manifest: %w", err)
		}
		mb = append(mb, '\n')
		if err := ew.tw.WriteHeader(ew.header(evidence.BundleManifest, int64(len(mb)))); err != nil {
			return fmt.Errorf("writing the manifest: %w", err)
		}
		if _, err := ew.tw.Write(mb); err != nil {
			return fmt.Errorf("writing the manifest: %w", err)
		}
		if err := ew.tw.Close(); err != nil {
			return fmt.Errorf("finishing the tar stream: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("finishing the gzip stream: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("writing bundle %s: %w", dst, err)
	}
	if red != nil && opts.Redact != nil {
		for file, counts := range ew.counts {
			opts.Redact.Record(file, counts)
		}
	}
	return m, nil
}

type entryMode int8

const (
	modeMem    entryMode = iota // data holds the file as it goes in
	modeRaw                     // copy the source file as it is
	modeRedact                  // redact the source file on the way in
	modeSkip                    // over the cap and not a log: listed as an error, not bundled
)

// prepared is one file ready to go into the archive.
type prepared struct {
	path   string
	mode   entryMode
	data   []byte
	c      *capped // modeRaw without redaction: opened already
	size   int64
	orig   int64
	cut    int64
	counts map[string]int
	err    error
}

type entryWriter struct {
	src     Source
	red     *Redactor
	max     int64
	tw      *tar.Writer
	mtime   time.Time
	dirs    map[string]bool
	items   []Item
	errText map[string]string         // path of a ".err" file -> its text
	has     map[string]bool           // the paths of the source
	counts  map[string]map[string]int // file -> rule -> count
	// intake is what red replaced in the source's files before this write, as the
	// evidence entered (Redactor.Intake): the manifest counts it with the rest.
	intake map[string]map[string]int
}

// entries writes every file, in order, while a second goroutine prepares the next ones.
func (ew *entryWriter) entries(ctx context.Context, paths []string, progress func(int, int, string)) error {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan prepared, 2)
	go func() {
		defer close(ch)
		for _, p := range paths {
			pr := ew.prepare(ctx, p)
			select {
			case ch <- pr:
			case <-ctx.Done():
				if pr.c != nil {
					pr.c.Close()
				}
				return
			}
			if pr.err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		for pr := range ch { // let the goroutine finish; close what it opened
			if pr.c != nil {
				pr.c.Close()
			}
		}
	}()
	done := 0
	for pr := range ch {
		if pr.err != nil {
			return pr.err
		}
		if err := ew.write(ctx, pr); err != nil {
			return err
		}
		done++
		if progress != nil {
			progress(done, len(paths), pr.path)
		}
	}
	return ctx.Err()
}

// prepare runs a file through the redactor to learn its size in the archive.
func (ew *entryWriter) prepare(ctx context.Context, p string) prepared {
	c, err := openCapped(ew.src, p, ew.max)
	if err != nil {
		return prepared{path: p, err: err}
	}
	pr := prepared{path: p, size: c.size, orig: c.origSize, cut: c.cut}
	if c.tooBig {
		pr.mode = modeSkip
		return pr
	}
	if ew.red == nil {
		pr.mode, pr.c = modeRaw, c
		return pr
	}
	defer c.Close()
	sink := &spill{}
	n, counts, err := ew.red.Filter(sink, ctxReader{ctx, c}, p)
	if err != nil {
		return prepared{path: p, err: err}
	}
	pr.counts = counts
	switch {
	case !sink.over:
		pr.mode, pr.data, pr.size = modeMem, sink.buf, n
	case len(counts) == 0 && n == c.size:
		pr.mode = modeRaw
	default:
		pr.mode, pr.size = modeRedact, n
	}
	return pr
}

// write puts one prepared file into the archive and records its manifest item.
func (ew *entryWriter) write(ctx context.Context, pr prepared) error {
	if pr.mode == modeSkip {
		// Say why in a ".err" companion, which is what a probe finding the file missing
		// reads (and which makes the manifest list the file as an error).
		why := fmt.Sprintf("not bundled: %d bytes, over the cap of %d; a file that is not a log cannot be cut short\n", pr.orig, ew.max)
		errPath := pr.path + evidence.ErrSuffix
		if ew.has[errPath] { // the source has one already, which goes in next
			ew.items = append(ew.items, Item{Path: pr.path, Status: StatusError, OriginalSize: pr.orig, Error: strings.TrimSpace(why)})
			return nil
		}
		return ew.write(ctx, prepared{path: errPath, mode: modeMem, data: []byte(why), size: int64(len(why))})
	}
	for _, d := range parents(pr.path) {
		if !ew.dirs[d] {
			ew.dirs[d] = true
			hdr := ew.header(d+"/", 0)
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
			if err := ew.tw.WriteHeader(hdr); err != nil {
				return fmt.Errorf("writing directory %s: %w", d, err)
			}
		}
	}
	if err := ew.tw.WriteHeader(ew.header(pr.path, pr.size)); err != nil {
		return fmt.Errorf("writing %s: %w", pr.path, err)
	}
	h := sha256.New()
	var errBuf *bytes.Buffer
	var w io.Writer = io.MultiWriter(ew.tw, h)
	if strings.HasSuffix(pr.path, evidence.ErrSuffix) && pr.size <= 64<<10 {
		errBuf = &bytes.Buffer{}
		w = io.MultiWriter(w, errBuf)
	}
	n, err := ew.content(ctx, w, pr)
	if err != nil {
		return fmt.Errorf("writing %s: %w", pr.path, err)
	}
	if n != pr.size {
		return fmt.Errorf("writing %s: the file changed while it was bundled (%d bytes, then %d)", pr.path, pr.size, n)
	}
	it := Item{Path: pr.path, Status: StatusOK, Size: pr.size, SHA256: hex.EncodeToString(h.Sum(nil))}
	if pr.cut > 0 {
		it.Status, it.OriginalSize = StatusTruncated, pr.orig
	}
	ew.items = append(ew.items, it)
	if errBuf != nil {
		ew.errText[pr.path] = errBuf.String()
	}
	if len(pr.counts) > 0 {
		ew.counts[pr.path] = pr.counts
	}
	return nil
}

func (ew *entryWriter) content(ctx context.Context, w io.Writer, pr prepared) (int64, error) {
	if pr.mode == modeMem {
		n, err := w.Write(pr.data)
		return int64(n), err
	}
	c := pr.c
	if c == nil {
		var err error
		if c, err = openCapped(ew.src, pr.path, ew.max); err != nil {
			return 0, err
		}
	}
	defer c.Close()
	if pr.mode == modeRedact {
		n, _, err := ew.red.Filter(w, ctxReader{ctx, c}, pr.path)
		return n, err
	}
	return io.CopyBuffer(w, ctxReader{ctx, c}, make([]byte, 256<<10))
}

func (ew *entryWriter) header(name string, size int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: ew.mtime}
}

// parents lists a path's directories, outermost first: "a/b/c" -> "a", "a/b".
func parents(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}

// spill keeps what is written to it up to memLimit; past that it only remembers that
// it overflowed, so sizing a large file costs no memory.
type spill struct {
	buf  []byte
	over bool
}

func (s *spill) Write(p []byte) (int, error) {
	if !s.over && len(s.buf)+len(p) <= memLimit {
		s.buf = append(s.buf, p...)
	} else {
		s.over, s.buf = true, nil
	}
	return len(p), nil
}

// ctxReader stops a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
