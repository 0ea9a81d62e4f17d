package foreign_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/foreign"
)

// scenarioBundle is routes-missing's win-1 as collectlogs.ps1 writes it.
func scenarioBundle(t *testing.T) files {
	tree, _, _, err := scenarios.Load("routes-missing")
	if err != nil {
		t.Fatal(err)
	}
	return collectlogsFiles(t, tree, "win-1", "2024")
}

func open(t *testing.T, lim bundle.Limits, paths ...string) (*foreign.Result, error) {
	t.Helper()
	return foreign.Open(context.Background(), paths, foreign.Options{Limits: lim})
}

func wantKind(t *testing.T, err error, kind bundle.Problem, what string) {
	t.Helper()
	var ve *bundle.VerifyError
	if !errors.As(err, &ve) || ve.Kind != kind {
		t.Errorf("%s: got %v, want a %s refusal", what, err, kind)
	}
}

// TestOtherArchiveKinds: archives of another kind are named, not misread.
func TestOtherArchiveKinds(t *testing.T) {
	dir := t.TempDir()
	for name, head := range map[string]string{"a.7z": "7z\xbc\xaf\x27\x1c\x00\x04", "a.rar": "Rar!\x1a\x07\x00", "a.cab": "MSCF\x00\x00", "a.xz": "\xfd7zXZ\x00"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(head+strings.Repeat("\x00", 600)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := open(t, bundle.DefaultLimits(), p)
		if err == nil || !strings.Contains(err.Error(), "zip, tar, tar.gz or a folder") {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := filepath.Join(dir, "notes.txt")
	os.WriteFile(p, []byte("the node is broken, please help\n"), 0o600)
	if _, err := open(t, bundle.DefaultLimits(), p); err == nil || !strings.Contains(err.Error(), "no collector's bundle recognized") {
		t.Errorf("plain text: %v", err)
	}
}

// TestTruncatedArchives: a zip or tar.gz cut short is refused as such.
func TestTruncatedArchives(t *testing.T) {
	dir := t.TempDir()
	z, err := os.ReadFile(zipped(t, dir, "c.zip", scenarioBundle(t)))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.zip")
	os.WriteFile(cut, z[:len(z)/2], 0o600)
	_, err = open(t, bundle.DefaultLimits(), cut)
	wantKind(t, err, bundle.Corrupt, "half a zip")
	g, err := os.ReadFile(tarGz(t, dir, "c.tar.gz", scenarioBundle(t)))
	if err != nil {
		t.Fatal(err)
	}
	cutg := filepath.Join(dir, "cut.tar.gz")
	os.WriteFile(cutg, g[:len(g)/2], 0o600)
	_, err = open(t, bundle.DefaultLimits(), cutg)
	wantKind(t, err, bundle.Truncated, "half a tar.gz")
}

func rawZip(t *testing.T, dir string, entries map[string]string) string {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for n, b := range entries {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(b))
	}
	w.Close()
	p := filepath.Join(dir, "h.zip")
	os.WriteFile(p, buf.Bytes(), 0o600)
	return p
}

// TestHostileArchives: the bounds and refusals of our own bundle reader.
func TestHostileArchives(t *testing.T) {
	for what, entries := range map[string]map[string]string{
		"escape":   {"../../etc/passwd": "x", "network.txt": ""},
		"absolute": {`C:\Windows\win.ini`: "x"},
		"dup-case": {"network.txt": "a", "NETWORK.TXT": "b"},
	} {
		_, err := open(t, bundle.DefaultLimits(), rawZip(t, t.TempDir(), entries))
		wantKind(t, err, bundle.Unsafe, what)
	}
	lim := bundle.DefaultLimits()
	lim.MaxEntries = 3
	_, err := open(t, lim, zipped(t, t.TempDir(), "c.zip", scenarioBundle(t)))
	wantKind(t, err, bundle.TooLarge, "too many entries")
	lim = bundle.DefaultLimits()
	lim.MaxTotal = 1000
	_, err = open(t, lim, zipped(t, t.TempDir(), "c.zip", scenarioBundle(t)))
	wantKind(t, err, bundle.TooLarge, "too many bytes")
	lim = bundle.DefaultLimits()
	lim.MaxDepth = 1
	_, err = open(t, lim, zipped(t, t.TempDir(), "c.zip", scenarioBundle(t)))
	wantKind(t, err, bundle.TooLarge, "too deep")

	// A tar with a link is refused before anything is read.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "network.txt", Typeflag: tar.TypeSymlink, Linkname: "/root/.kube/config"})
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "l.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o600)
	_, err = open(t, bundle.DefaultLimits(), p)
	wantKind(t, err, bundle.Unsafe, "symlink")
}

// TestZipThatLiesAboutSizes: an entry holding more than its header declares (a
// decompression bomb's trick) is refused when read.
func TestZipThatLiesAboutSizes(t *testing.T) {
	dir := t.TempDir()
	fs := scenarioBundle(t)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range sortedNames(fs) {
		data := fs[n]
		if n != "network.txt" {
			f, _ := w.Create(n)
			f.Write(data)
			continue
		}
		big := bytes.Repeat([]byte("A"), 4096)
		hdr := &zip.FileHeader{Name: n, Method: zip.Store, CRC32: crc32.ChecksumIEEE(big), CompressedSize64: uint64(len(big)), UncompressedSize64: 16}
		f, err := w.CreateRaw(hdr)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(big)
	}
	w.Close()
	p := filepath.Join(dir, "lie.zip")
	os.WriteFile(p, buf.Bytes(), 0o600)
	_, err := open(t, bundle.DefaultLimits(), p)
	if err == nil {
		t.Fatal("a zip entry larger than declared was read")
	}
}

// TestUnknownFilesNamed: a file no version of the collector writes is listed, so a
// newer collector says what it added; the known ones are listed with why they are not read.
func TestUnknownFilesNamed(t *testing.T) {
	fs := scenarioBundle(t)
	fs["hnsstats-v3.txt"] = ps51("something new\n")
	res, err := open(t, bundle.DefaultLimits(), folder(t, t.TempDir(), fs))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Bundles[0]
	if len(b.Unknown) != 1 || b.Unknown[0] != "hnsstats-v3.txt" {
		t.Errorf("unknown: %v", b.Unknown)
	}
	if !strings.Contains(strings.Join(b.Notes, "\n"), "hnsstats-v3.txt") {
		t.Errorf("notes do not name the unknown file: %v", b.Notes)
	}
	known := strings.Join(b.Known, "\n")
	for _, want := range []string{"winevt/System.evtx: binary event logs", "ports.txt: vfpctrl"} {
		if !strings.Contains(known, want) {
			t.Errorf("known files do not say %q:\n%s", want, known)
		}
	}
	if !strings.Contains(b.Version, "2024-07 or later") || b.Node != "win-1" {
		t.Errorf("version %q node %q (%s)", b.Version, b.Node, b.NodeFrom)
	}
	// winver.txt gives the build: host.json is read, its other fields not shown.
	if why, ok := res.Gap(evidence.NodeFile("win-1", evidence.FileHost)); ok {
		t.Errorf("host.json is a gap though winver.txt gives the build: %q", why)
	}
	if why, ok := res.Gap(evidence.NodeFile("win-1", evidence.FileProcesses)); !ok || !strings.Contains(why, "collectlogs.ps1 does not save it") {
		t.Errorf("processes.json gap: %q", why)
	}
}

// TestOpenEvidenceKeepsOurOwn: our own evidence folder is read as before; a foreign
// one is named by collector and version.
func TestOpenEvidenceKeepsOurOwn(t *testing.T) {
	own := folder(t, t.TempDir(), files{"nodes/win-1/host.json": []byte("{}")})
	_, source, c, res, err := foreign.OpenEvidence(context.Background(), own, foreign.Options{})
	if err != nil || res != nil || !strings.HasPrefix(source, "folder ") {
		t.Fatalf("own folder: %q %v %v", source, res, err)
	}
	c.Close()
	_, source, _, res, err = foreign.OpenEvidence(context.Background(), zipped(t, t.TempDir(), "c.zip", scenarioBundle(t)), foreign.Options{})
	if err != nil || res == nil || !strings.Contains(source, "collectlogs.ps1 (microsoft/SDN 2024-07 or later") {
		t.Fatalf("foreign zip: %q %v", source, err)
	}
}
