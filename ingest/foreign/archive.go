package foreign

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
)

// entry is one file of a foreign input, named by its slash-separated path inside it.
type entry struct {
	name string
	size int64
}

// source is one input listed (a zip, a tar, a tar.gz, a folder, one text file); its
// files are read on demand, only those a mapping asks for.
type source struct {
	label    string  // the input as the report names it
	entries  []entry // regular files, sorted by name
	isFolder bool
	load     func(ctx context.Context, want map[string]bool) (map[string][]byte, error)
}

// kind names what an input file is, by its first bytes.
func kind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return "zip"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip"
	case len(head) > 262 && string(head[257:262]) == "ustar":
		return "tar"
	case bytes.HasPrefix(head, []byte("7z\xbc\xaf\x27\x1c")):
		return "7-Zip archive"
	case bytes.HasPrefix(head, []byte("Rar!")):
		return "RAR archive"
	case bytes.HasPrefix(head, []byte("MSCF")):
		return "Windows cabinet"
	case bytes.HasPrefix(head, []byte("BZh")):
		return "bzip2 stream"
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return "xz stream"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd stream"
	case bytes.HasPrefix(head, []byte("ElfFile")):
		return "Windows event log (.evtx)"
	}
	return "text"
}

// openSource lists one input file or folder within the limits our own bundle reader
// keeps: entry count, declared sizes, total size, name length and depth, and no entry
// that escapes the root, links, devices or repeats.
func openSource(p string, lim bundle.Limits) (*source, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	if st.IsDir() {
		return openFolder(p, lim)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	switch k := kind(head[:n]); k {
	case "zip":
		return openZip(p, st.Size(), lim)
	case "gzip", "tar":
		return openTar(p, k == "gzip", lim)
	case "text":
		return openText(p, st.Size(), lim)
	default:
		return nil, fmt.Errorf("%s is a %s: foreign bundles are read as zip, tar, tar.gz or a folder; unpack it and give the folder", p, k)
	}
}

// checker applies the limits to each entry as it is listed.
type checker struct {
	lim   bundle.Limits
	seen  map[string]bool
	total int64
}

func newChecker(lim bundle.Limits) *checker { return &checker{lim: lim, seen: map[string]bool{}} }

// clean normalizes an entry name: Windows PowerShell 5.1's Compress-Archive writes
// backslashes between folders, so they are separators here (our own bundles refuse them).
func (c *checker) clean(raw string) (string, error) {
	bad := func(why string) error { return &bundle.VerifyError{Kind: bundle.Unsafe, Entry: raw, Detail: why} }
	if len(raw) > c.lim.MaxNameLen {
		return "", &bundle.VerifyError{Kind: bundle.TooLarge, Entry: raw[:64] + "…", Detail: fmt.Sprintf("a name of %d bytes (at most %d)", len(raw), c.lim.MaxNameLen)}
	}
	n := strings.ReplaceAll(raw, `\`, "/")
	switch {
	case n == "":
		return "", bad("empty name")
	case strings.HasPrefix(n, "/") || len(n) >= 2 && n[1] == ':':
		return "", bad("absolute path")
	}
	n = strings.TrimPrefix(strings.TrimSuffix(n, "/"), "./")
	for _, elem := range strings.Split(n, "/") {
		if elem == ".." {
			return "", bad("escapes the archive root")
		}
	}
	n = path.Clean(n)
	if n == "." {
		return "", nil
	}
	if !fs.ValidPath(n) {
		return "", bad("not a valid path")
	}
	if d := strings.Count(n, "/") + 1; d > c.lim.MaxDepth {
		return "", &bundle.VerifyError{Kind: bundle.TooLarge, Entry: raw, Detail: fmt.Sprintf("%d levels deep (at most %d)", d, c.lim.MaxDepth)}
	}
	return n, nil
}

// add checks one file entry: unique, within the sizes and the count.
func (c *checker) add(name string, size int64) error {
	if c.seen[strings.ToLower(name)] {
		return &bundle.VerifyError{Kind: bundle.Unsafe, Entry: name, Detail: "duplicate entry"}
	}
	c.seen[strings.ToLower(name)] = true
	if len(c.seen) > c.lim.MaxEntries {
		return &bundle.VerifyError{Kind: bundle.TooLarge, Detail: fmt.Sprintf("more than %d entries", c.lim.MaxEntries)}
	}
	if size < 0 || size > c.lim.MaxEntry {
		return &bundle.VerifyError{Kind: bundle.TooLarge, Entry: name, Detail: fmt.Sprintf("declares %d bytes; no file may be larger than %d", size, c.lim.MaxEntry)}
	}
	if c.total += size; c.total > c.lim.MaxTotal {
		return &bundle.VerifyError{Kind: bundle.TooLarge, Detail: fmt.Sprintf("more than %d bytes uncompressed", c.lim.MaxTotal)}
	}
	return nil
}

func sortEntries(es []entry) []entry {
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	return es
}

func openZip(p string, size int64, lim bundle.Limits) (*source, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, &bundle.VerifyError{Kind: bundle.Corrupt, Detail: "not a readable zip (cut short?): " + err.Error()})
	}
	c := newChecker(lim)
	var es []entry
	for _, zf := range zr.File {
		name, err := c.clean(zf.Name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		m := zf.Mode()
		switch {
		case name == "" || m.IsDir() || strings.HasSuffix(zf.Name, "/") || strings.HasSuffix(zf.Name, `\`):
			continue
		case !m.IsRegular():
			return nil, fmt.Errorf("reading %s: %w", p, &bundle.VerifyError{Kind: bundle.Unsafe, Entry: zf.Name, Detail: "not a regular file (a link or a device)"})
		}
		if zf.UncompressedSize64 > uint64(lim.MaxEntry) {
			return nil, fmt.Errorf("reading %s: %w", p, &bundle.VerifyError{Kind: bundle.TooLarge, Entry: name, Detail: fmt.Sprintf("declares %d bytes", zf.UncompressedSize64)})
		}
		if err := c.add(name, int64(zf.UncompressedSize64)); err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		es = append(es, entry{name, int64(zf.UncompressedSize64)})
	}
	load := func(ctx context.Context, want map[string]bool) (map[string][]byte, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", p, err)
		}
		defer f.Close()
		zr, err := zip.NewReader(f, size)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		byName := map[string]*zip.File{}
		for _, zf := range zr.File {
			if n, err := c.clean(zf.Name); err == nil {
				byName[n] = zf
			}
		}
		out := map[string][]byte{}
		for name := range want {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			zf := byName[name]
			if zf == nil {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				return nil, fmt.Errorf("reading %s in %s: %w", name, p, err)
			}
			b, err := readCapped(rc, name, int64(zf.UncompressedSize64), lim)
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("reading %s in %s: %w", name, p, err)
			}
			out[name] = b
		}
		return out, nil
	}
	return &source{label: p, entries: sortEntries(es), load: load}, nil
}

// readCapped reads one file of its declared size: a log (.log) keeps its last MaxLog
// bytes, anything else over MaxText is refused; more bytes than declared is corrupt (a
// zip whose headers lie about sizes is a decompression bomb).
func readCapped(r io.Reader, name string, size int64, lim bundle.Limits) ([]byte, error) {
	limit := lim.MaxText
	if strings.HasSuffix(name, ".json") {
		limit = lim.MaxClusterJSON
	}
	isLog := strings.HasSuffix(strings.ToLower(name), ".log")
	if isLog {
		limit = lim.MaxLog
	}
	if size > limit && !isLog {
		return nil, &bundle.LimitError{Path: name, Size: size, Limit: limit, What: "text"}
	}
	if size > limit {
		if _, err := io.CopyN(io.Discard, r, size-limit); err != nil {
			return nil, &bundle.VerifyError{Kind: bundle.Truncated, Entry: name, Detail: err.Error()}
		}
		size = limit
	}
	b, err := io.ReadAll(io.LimitReader(r, size+1))
	switch {
	case err != nil && errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &bundle.VerifyError{Kind: bundle.Truncated, Entry: name, Detail: "the entry ends early"}
	case err != nil:
		return nil, &bundle.VerifyError{Kind: bundle.Corrupt, Entry: name, Detail: err.Error()}
	case int64(len(b)) > size:
		return nil, &bundle.VerifyError{Kind: bundle.Corrupt, Entry: name, Detail: fmt.Sprintf("holds more than the %d bytes it declares", size)}
	case int64(len(b)) < size:
		return nil, &bundle.VerifyError{Kind: bundle.Truncated, Entry: name, Detail: fmt.Sprintf("%d of %d bytes", len(b), size)}
	}
	return b, nil
}

// tarStream opens the tar stream of a tar or tar.gz file.
func tarStream(f io.Reader, gz bool) (*tar.Reader, func() error, error) {
	br := bufio.NewReaderSize(f, 256<<10)
	if !gz {
		return tar.NewReader(br), func() error { return nil }, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, &bundle.VerifyError{Kind: bundle.Corrupt, Detail: "not a gzip file: " + err.Error()}
	}
	return tar.NewReader(zr), zr.Close, nil
}

func tarErr(err error, where string) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &bundle.VerifyError{Kind: bundle.Truncated, Detail: "the stream ends early, " + where}
	case errors.Is(err, tar.ErrHeader):
		return &bundle.VerifyError{Kind: bundle.Corrupt, Detail: "not a tar stream " + where}
	}
	return &bundle.VerifyError{Kind: bundle.Corrupt, Detail: fmt.Sprintf("%v %s", err, where)}
}

// walkTar calls fn for each file entry of a tar or tar.gz, after the limits' checks.
func walkTar(ctx context.Context, p string, gz bool, lim bundle.Limits, fn func(name string, size int64, r io.Reader) error) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	tr, closeZ, err := tarStream(f, gz)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	defer closeZ()
	c := newChecker(lim)
	for count := 0; ; count++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return fmt.Errorf("reading %s: %w", p, tarErr(err, fmt.Sprintf("after %d entries", count)))
		}
		if count > lim.MaxEntries {
			return fmt.Errorf("reading %s: %w", p, &bundle.VerifyError{Kind: bundle.TooLarge, Detail: fmt.Sprintf("more than %d entries", lim.MaxEntries)})
		}
		switch hdr.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeDir:
			continue
		case tar.TypeReg, '\x00':
		default:
			return fmt.Errorf("reading %s: %w", p, &bundle.VerifyError{Kind: bundle.Unsafe, Entry: hdr.Name, Detail: "not a regular file (a link, a device or a sparse file)"})
		}
		name, err := c.clean(hdr.Name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if name == "" {
			continue
		}
		if err := c.add(name, hdr.Size); err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if err := fn(name, hdr.Size, tr); err != nil {
			return err
		}
	}
}

func openTar(p string, gz bool, lim bundle.Limits) (*source, error) {
	var es []entry
	err := walkTar(context.Background(), p, gz, lim, func(name string, size int64, _ io.Reader) error {
		es = append(es, entry{name, size})
		return nil
	})
	if err != nil {
		return nil, err
	}
	load := func(ctx context.Context, want map[string]bool) (map[string][]byte, error) {
		out := map[string][]byte{}
		err := walkTar(ctx, p, gz, lim, func(name string, size int64, r io.Reader) error {
			if !want[name] {
				return nil
			}
			b, err := readCapped(r, name, size, lim)
			if err != nil {
				return fmt.Errorf("reading %s in %s: %w", name, p, err)
			}
			out[name] = b
			return nil
		})
		return out, err
	}
	return &source{label: p, entries: sortEntries(es), load: load}, nil
}

// openText is one text file given alone: `kubectl cluster-info dump` to stdout.
func openText(p string, size int64, lim bundle.Limits) (*source, error) {
	name := path.Base(strings.ReplaceAll(p, `\`, "/"))
	load := func(_ context.Context, want map[string]bool) (map[string][]byte, error) {
		if !want[name] {
			return map[string][]byte{}, nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", p, err)
		}
		defer f.Close()
		b, err := readCapped(f, name+".json", size, lim)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		return map[string][]byte{name: b}, nil
	}
	return &source{label: p, entries: []entry{{name, size}}, load: load}, nil
}
