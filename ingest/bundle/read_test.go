package bundle

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// validEntries is a small valid bundle's entries, decoded.
func validEntries(t *testing.T) []rawEntry {
	t.Helper()
	dst, _ := writeTree(t, map[string]string{"nodes/win-1/x.json": `{"a": 1}`, "cluster/nodes.json": "{}"}, Options{})
	return readEntries(t, dst)
}

// withManifest returns entries followed by a manifest that lists their files truthfully.
func withManifest(t *testing.T, entries []rawEntry) []rawEntry {
	t.Helper()
	m := Manifest{FormatVersion: FormatVersion, Items: []Item{}}
	for _, e := range entries {
		if e.hdr.Typeflag == tar.TypeReg {
			sum := sha256.Sum256(e.body)
			m.Items = append(m.Items, Item{Path: strings.TrimPrefix(e.hdr.Name, "./"), Status: StatusOK,
				Size: int64(len(e.body)), SHA256: hex.EncodeToString(sum[:])})
		}
	}
	return append(entries, manifestEntry(t, m))
}

func replace(entries []rawEntry, name string, fn func(*rawEntry)) []rawEntry {
	out := append([]rawEntry(nil), entries...)
	for i := range out {
		if out[i].hdr.Name == name {
			fn(&out[i])
		}
	}
	return out
}

func TestOpenRefuses(t *testing.T) {
	valid := validEntries(t)
	validTar := tarBytes(t, valid)
	validGz := gzipBytes(t, validTar)
	last := len(valid) - 1
	link := func(typ byte, name, target string) rawEntry {
		return rawEntry{hdr: tar.Header{Typeflag: typ, Name: name, Linkname: target, Mode: 0o777, ModTime: time.Unix(0, 0)}}
	}
	cases := []struct {
		name  string
		path  func() string
		kind  Problem
		words string
	}{
		{"truncated gzip", func() string { return writeFile(t, validGz[:len(validGz)*2/3]) }, Truncated, "bundle is truncated"},
		{"truncated tar", func() string { return writeFile(t, gzipBytes(t, validTar[:len(validTar)/2|1])) }, Truncated, "bundle is truncated"},
		{"not gzip", func() string { return writeFile(t, validTar) }, Corrupt, "not a gzip file"},
		{"gzip checksum", func() string {
			b := append([]byte(nil), validGz...)
			b[len(b)-6] ^= 0xff // the CRC32 trailer
			return writeFile(t, b)
		}, Corrupt, "checksum"},
		{"tampered entry", func() string {
			return craft(t, replace(valid, "nodes/win-1/x.json", func(e *rawEntry) { e.body = []byte(`{"a": 2}`) }))
		}, Tampered, "tampered: nodes/win-1/x.json checksum mismatch"},
		{"tampered size", func() string {
			return craft(t, replace(valid, "nodes/win-1/x.json", func(e *rawEntry) { e.body = []byte(`{"a": 22}`) }))
		}, Tampered, "nodes/win-1/x.json size 9, the manifest says 8"},
		{"extra entry", func() string {
			return craft(t, append(append(append([]rawEntry(nil), valid[:last]...), fileEntry("nodes/win-1/extra.json", "{}")), valid[last]))
		}, Tampered, "nodes/win-1/extra.json is not listed in the manifest"},
		{"missing entry", func() string {
			return craft(t, replace(valid, "nodes/win-1/x.json", func(e *rawEntry) { e.hdr.Name = "nodes/win-1/y.json" }))
		}, Tampered, "x.json is listed in the manifest but missing"},
		{"missing manifest", func() string { return craft(t, valid[:last]) }, BadManifest, "no manifest.json"},
		{"unknown format version", func() string {
			return craft(t, append(append([]rawEntry(nil), valid[:last]...), manifestEntry(t, map[string]any{"formatVersion": 2})))
		}, BadManifest, "format version 2 is not supported"},
		{"manifest not JSON", func() string {
			return craft(t, append(append([]rawEntry(nil), valid[:last]...), fileEntry(evidence.BundleManifest, "<xml/>")))
		}, BadManifest, "manifest.json is not JSON"},
		{"dot-dot entry", func() string {
			return craft(t, withManifest(t, []rawEntry{fileEntry("../evil.json", "{}")}))
		}, Unsafe, `"../evil.json": escapes the bundle root`},
		{"nested dot-dot", func() string {
			return craft(t, withManifest(t, []rawEntry{fileEntry("nodes/../../evil", "{}")}))
		}, Unsafe, "escapes the bundle root"},
		{"absolute path", func() string { return craft(t, withManifest(t, []rawEntry{fileEntry("/etc/evil", "x")})) }, Unsafe, `"/etc/evil": absolute path`},
		{"windows path", func() string { return craft(t, withManifest(t, []rawEntry{fileEntry(`C:\evil`, "x")})) }, Unsafe, "absolute path"},
		{"symlink", func() string {
			return craft(t, withManifest(t, []rawEntry{link(tar.TypeSymlink, "nodes/win-1/x.json", "/etc/passwd")}))
		}, Unsafe, "symlinks are not allowed"},
		{"hardlink", func() string {
			return craft(t, withManifest(t, []rawEntry{fileEntry("a", "x"), link(tar.TypeLink, "b", "a")}))
		}, Unsafe, "hard links are not allowed"},
		{"device", func() string { return craft(t, withManifest(t, []rawEntry{link(tar.TypeChar, "dev", "")})) }, Unsafe, "device files are not allowed"},
		{"duplicate entry", func() string {
			return craft(t, withManifest(t, []rawEntry{fileEntry("a.json", "{}"), fileEntry("a.json", "{}")}))
		}, Unsafe, `"a.json": duplicate entry`},
		{"duplicate manifest", func() string { return craft(t, append(append([]rawEntry(nil), valid...), valid[last])) }, Unsafe, "duplicate entry"},
		{"file and directory", func() string {
			return craft(t, withManifest(t, []rawEntry{fileEntry("a", "x"), fileEntry("a/b", "y")}))
		}, Unsafe, "both a file and a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.path())
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Kind != tc.kind || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("err = %v\nwant a %s error saying %q", err, tc.kind, tc.words)
			}
		})
	}
}

func TestOpenAcceptsRepackedBundles(t *testing.T) {
	// Unpacked and packed again with "tar czf x.tar.gz ." the entries gain "./", the
	// manifest moves, and directory entries come in any order; it is still the same bundle.
	valid := validEntries(t)
	var repacked []rawEntry
	repacked = append(repacked, rawEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "./", Mode: 0o755}})
	for i := len(valid) - 1; i >= 0; i-- {
		e := valid[i]
		e.hdr.Name = "./" + e.hdr.Name
		e.hdr.Uname, e.hdr.Uid = "someone", 1000
		repacked = append(repacked, e)
	}
	b, err := Open(craft(t, repacked))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got, err := os.ReadFile(b.Path()); err != nil || len(got) == 0 {
		t.Errorf("Path() = %s", b.Path())
	}
	raw, _ := json.Marshal(b.Manifest().Items)
	if !strings.Contains(string(raw), "nodes/win-1/x.json") {
		t.Errorf("manifest items = %s", raw)
	}
}
