package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// treeOf builds an evidence tree from path -> content.
func treeOf(files map[string]string) *evidence.Tree {
	t := evidence.NewTree()
	for p, s := range files {
		t.Put(p, []byte(s))
	}
	return t
}

// writeTree writes a bundle of files into a temp dir and returns its path and manifest.
func writeTree(t *testing.T, files map[string]string, opts Options) (string, *Manifest) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "snap.tar.gz")
	m, err := Write(context.Background(), dst, TreeSource(treeOf(files)), opts)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return dst, m
}

// rawEntry is one tar entry as crafted by a test: anything goes.
type rawEntry struct {
	hdr  tar.Header
	body []byte
}

// readEntries reads a bundle's tar entries without any verification.
func readEntries(t *testing.T, path string) []rawEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []rawEntry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rawEntry{hdr: *hdr, body: body})
	}
}

// tarBytes writes entries as an uncompressed tar stream.
func tarBytes(t *testing.T, entries []rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == tar.TypeReg || h.Typeflag == 0 {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("crafting %s: %v", h.Name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// craft writes entries as a tar.gz file.
func craft(t *testing.T, entries []rawEntry) string {
	t.Helper()
	return writeFile(t, gzipBytes(t, tarBytes(t, entries)))
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "crafted.tar.gz")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// gunzip returns the decompressed tar stream of a bundle.
func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fileEntry(name, body string) rawEntry {
	return rawEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, ModTime: time.Unix(0, 0)}, body: []byte(body)}
}

// manifestEntry encodes m as the manifest entry.
func manifestEntry(t *testing.T, m any) rawEntry {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return fileEntry(evidence.BundleManifest, string(b))
}
