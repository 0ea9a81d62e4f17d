package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// tarBuild streams a crafted bundle to disk, so hostile inputs of hundreds of MB cost
// the test no memory.
type tarBuild struct {
	tb    testing.TB
	f     *os.File
	zw    *gzip.Writer
	tw    *tar.Writer
	items []Item
}

func newTarBuild(tb testing.TB, p string) *tarBuild {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	return &tarBuild{tb: tb, f: f, zw: zw, tw: tar.NewWriter(zw)}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// file adds a listed file of size bytes from r (nil: zeros).
func (b *tarBuild) file(name string, size int64, r io.Reader) {
	b.tb.Helper()
	if r == nil {
		r = zeros{}
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: time.Unix(0, 0)}
	if err := b.tw.WriteHeader(hdr); err != nil {
		b.tb.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(b.tw, h), r, size); err != nil {
		b.tb.Fatal(err)
	}
	b.items = append(b.items, Item{Path: name, Status: StatusOK, Size: size, SHA256: hex.EncodeToString(h.Sum(nil))})
}

func (b *tarBuild) dir(name string) {
	b.tb.Helper()
	if err := b.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
		b.tb.Fatal(err)
	}
}

// raw writes tar bytes as they are (a crafted header the tar writer would refuse).
func (b *tarBuild) raw(p []byte) {
	b.tb.Helper()
	if err := b.tw.Flush(); err != nil {
		b.tb.Fatal(err)
	}
	if _, err := b.zw.Write(p); err != nil {
		b.tb.Fatal(err)
	}
}

// close writes the manifest listing every file added, ends the tar stream, appends
// trailing zero bytes inside the gzip stream, and closes the file.
func (b *tarBuild) close(trailing int64) {
	b.tb.Helper()
	m := Manifest{FormatVersion: FormatVersion, Items: b.items}
	if m.Items == nil {
		m.Items = []Item{}
	}
	mb, _ := json.Marshal(m)
	if err := b.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: evidence.BundleManifest, Size: int64(len(mb)), Mode: 0o644}); err != nil {
		b.tb.Fatal(err)
	}
	b.tw.Write(mb)
	if err := b.tw.Close(); err != nil {
		b.tb.Fatal(err)
	}
	if trailing > 0 {
		io.CopyN(b.zw, zeros{}, trailing)
	}
	b.truncate()
}

// truncate ends the file where it is: the tar stream is cut off.
func (b *tarBuild) truncate() {
	b.tb.Helper()
	if err := b.zw.Close(); err != nil {
		b.tb.Fatal(err)
	}
	if err := b.f.Close(); err != nil {
		b.tb.Fatal(err)
	}
}

// headerOnly is a tar header declaring size bytes, with none of them following.
func headerOnly(tb testing.TB, name string, size int64) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: time.Unix(0, 0)}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes() // the header block is out; the body never comes
}

// paxSparse is a real PAX (GNU 1.0) sparse entry: 515 bytes in the archive that unpack to
// realSize bytes. The tar writer refuses to write GNU.sparse records, so the records are
// written under another vendor prefix of the same length and renamed in the bytes.
func paxSparse(tb testing.TB, name string, realSize int64) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := make([]byte, 512)
	copy(body, "1\n0\n3\n")
	body = append(body, "abc"...)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: "GNUSparseFile.0/x", Size: int64(len(body)), Format: tar.FormatPAX,
		ModTime: time.Unix(0, 0), PAXRecords: map[string]string{"ABC.sparse.major": "1", "ABC.sparse.minor": "0",
			"ABC.sparse.realsize": fmt.Sprint(realSize), "ABC.sparse.name": name}}
	if err := tw.WriteHeader(hdr); err != nil {
		tb.Fatal(err)
	}
	tw.Write(body)
	tw.Flush()
	return bytes.ReplaceAll(buf.Bytes(), []byte("ABC.sparse."), []byte("GNU.sparse."))
}

// oldGNUSparse is a header of the old GNU sparse type ('S'), patched into a GNU header.
func oldGNUSparse(tb testing.TB, name string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Format: tar.FormatGNU, ModTime: time.Unix(0, 0)}); err != nil {
		tb.Fatal(err)
	}
	tw.Flush()
	blk := buf.Bytes()[:512]
	blk[156] = tar.TypeGNUSparse
	copy(blk[148:156], "        ")
	sum := 0
	for _, c := range blk {
		sum += int(c)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return blk
}
