package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
)

func TestWriteIsReproducible(t *testing.T) {
	files := secrets.Files()
	files["nodes/win-2/sweep.err"] = "dial tcp 10.0.0.6:5986: i/o timeout\nnode win-2 over winrm-https (10.0.0.6:5986)\n"
	files["nodes/win-1/"+evidence.FileLogFlanneld+evidence.ErrSuffix] = "exit 1\nno flanneld log\n"
	opts := Options{Tool: "wintroubleshoot", Version: "1.2.3", Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Nodes: map[string]Node{"win-1": {Transport: "winrm-https", Address: "10.0.0.5:5986"}}}
	a, _ := writeTree(t, files, opts)
	b, _ := writeTree(t, files, opts)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Fatal("two Writes of the same evidence with the same Options differ")
	}
	// Fixed metadata on every entry, manifest last, entries sorted.
	entries := readEntries(t, a)
	var names []string
	for _, e := range entries {
		h := e.hdr
		wantMode := int64(0o644)
		if h.Typeflag == tar.TypeDir {
			wantMode = 0o755
		}
		if h.Mode != wantMode || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(opts.Time) {
			t.Errorf("%s: mode %o uid %d gid %d user %q/%q mtime %v", h.Name, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime)
		}
		names = append(names, h.Name)
	}
	if last := names[len(names)-1]; last != evidence.BundleManifest {
		t.Errorf("last entry is %s, want the manifest", last)
	}
	if ab[3] != 0 || !bytes.Equal(ab[4:8], []byte{0, 0, 0, 0}) {
		t.Errorf("gzip header carries a name or mtime: % x", ab[:10])
	}
}

func TestManifestNodesAndErrors(t *testing.T) {
	files := map[string]string{
		"nodes/win-1/host.json":                               "{}",
		"nodes/win-1/disk.json.err":                           "exit 1\nGet-CimInstance: access denied\n",
		"nodes/win-1/hns-endpoints.json":                      "[]",
		"nodes/win-1/hns-endpoints.json" + evidence.ErrSuffix: "exit 1\npartial\n",
		"nodes/win-2/sweep.err":                               "dial tcp 10.0.0.6:5986: i/o timeout\n",
	}
	dst, m := writeTree(t, files, Options{Nodes: map[string]Node{"win-1": {Transport: "ssh", Address: "10.0.0.5:22"}}})
	if n := m.Nodes["win-1"]; n.Transport != "ssh" || n.Address != "10.0.0.5:22" || n.Error != "" {
		t.Errorf("win-1 = %+v", n)
	}
	if n := m.Nodes["win-2"]; !strings.Contains(n.Error, "i/o timeout") {
		t.Errorf("win-2 = %+v, want the sweep error", n)
	}
	it, _ := m.Item("nodes/win-1/disk.json")
	if it.Status != StatusError || it.SHA256 != "" || !strings.Contains(it.Error, "access denied") {
		t.Errorf("disk.json item = %+v", it)
	}
	it, _ = m.Item("nodes/win-1/hns-endpoints.json")
	if it.Status != StatusError || it.SHA256 == "" {
		t.Errorf("partial output item = %+v, want status error with the file present", it)
	}
	b, err := Open(dst)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ev := evidence.Evidence{FS: b.FS()}
	if got := ev.CollectError("nodes/win-1/disk.json"); !strings.Contains(got, "access denied") {
		t.Errorf("CollectError through the bundle FS = %q", got)
	}
	if nodes := ev.Nodes(); fmt.Sprint(nodes) != "[win-1 win-2]" {
		t.Errorf("Nodes() = %v", nodes)
	}
}

func TestSizeCapKeepsTheTail(t *testing.T) {
	var log strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&log, "line %04d of the kubelet log\n", i)
	}
	big := `[` + strings.Repeat(`{"Name": "svc"},`, 100) + `{}]`
	dst, m := writeTree(t, map[string]string{"nodes/w/log-kubelet.log": log.String(), "small.txt": "x",
		"nodes/w/services.json": big}, Options{MaxFileSize: 1000})
	// A JSON file is never cut into invalid JSON: it is left out, and the manifest says why.
	if it, _ := m.Item("nodes/w/services.json"); it.Status != StatusError || it.SHA256 != "" || !strings.Contains(it.Error, "cannot be cut short") {
		t.Errorf("big JSON item = %+v", it)
	}
	it, _ := m.Item("nodes/w/log-kubelet.log")
	if it.Status != StatusTruncated || it.OriginalSize != int64(log.Len()) {
		t.Errorf("item = %+v", it)
	}
	b, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	ev := evidence.Evidence{FS: b.FS()}
	if _, err := ev.Read("nodes/w/services.json"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "cannot be cut short") {
		t.Errorf("the left-out JSON file: %v", err)
	}
	got, _ := fs.ReadFile(b.FS(), "nodes/w/log-kubelet.log")
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "[wintroubleshoot: the first ") || !strings.HasSuffix(string(got), "line 0999 of the kubelet log\n") {
		t.Errorf("capped file:\n%s", got)
	}
	if !strings.HasPrefix(lines[1], "line ") || len(got) > 1000+len(lines[0])+1 {
		t.Errorf("the tail does not start on a whole line or is too long (%d bytes): %q", len(got), lines[1])
	}
	if it, _ := m.Item("small.txt"); it.Status != StatusOK {
		t.Errorf("small file = %+v", it)
	}
}

// failingSource fails while its second file is being read.
type failingSource struct{ Source }

func (f failingSource) Open(name string) (io.ReadCloser, int64, error) {
	rc, n, err := f.Source.Open(name)
	if err != nil || !strings.Contains(name, "bad") {
		return rc, n, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(rc, n/2), errReader{}), rc}, n, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestFailedWriteLeavesNothing(t *testing.T) {
	big := strings.Repeat("lots of log text\n", 200_000) // past memLimit: streamed twice
	for _, redact := range []bool{true, false} {
		dir := t.TempDir()
		dst := filepath.Join(dir, "snap.tar.gz")
		src := failingSource{TreeSource(treeOf(map[string]string{"a.log": "ok\n", "bad.log": big, "z.log": "ok\n"}))}
		_, err := Write(context.Background(), dst, src, Options{NoRedact: !redact})
		if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "bad.log") {
			t.Errorf("redact=%v: err = %v, want the reader's error naming the file", redact, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("redact=%v: left behind %v", redact, left)
		}
	}
	// A cancelled context stops the write, also leaving nothing.
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, filepath.Join(dir, "x.tar.gz"), TreeSource(treeOf(map[string]string{"a": big})), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("cancelled: left behind %v", left)
	}
}

func TestRoundTripLargeFilesAndNoRedact(t *testing.T) {
	// Past smallFile, so the reader serves it lazily; a few secrets make it dirty, so
	// redaction streams it twice.
	clean := strings.Repeat("I0102 03:04:05.000000 1 kubelet.go:1] nothing secret here\n", 50_000)
	big := clean + "token: NotRedactedWhenOff\n" + clean + "token: NotRedactedWhenOff\n" + clean
	files := map[string]string{"nodes/w/log-kubelet.log": big, "cluster/nodes.json": `{"items":[]}`}
	dst, m := writeTree(t, files, Options{NoRedact: true})
	if m.Redacted || len(m.Redactions) != 0 {
		t.Errorf("NoRedact: manifest = redacted %v, %v", m.Redacted, m.Redactions)
	}
	b, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range files {
		got, err := fs.ReadFile(b.FS(), p)
		if err != nil || string(got) != want {
			t.Errorf("%s: %d bytes, err %v; want %d bytes", p, len(got), err, len(want))
		}
	}
	if b.files["nodes/w/log-kubelet.log"].data != nil {
		t.Error("a file larger than smallFile is held in memory")
	}
	if err := fstest.TestFS(b.FS(), "nodes/w/log-kubelet.log", "cluster/nodes.json"); err != nil {
		t.Errorf("the bundle FS misbehaves: %v", err)
	}
	// Redact the unredacted bundle in place: the large file is redacted, counts recorded.
	rm, err := Redact(context.Background(), dst, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rm.Redacted || rm.RedactedValues() != 2 {
		t.Errorf("Redact: redacted %v, %d values", rm.Redacted, rm.RedactedValues())
	}
	if raw := gunzip(t, dst); bytes.Contains(raw, []byte("NotRedactedWhenOff")) {
		t.Error("Redact left the token in the bundle")
	}
	if left, _ := os.ReadDir(filepath.Dir(dst)); len(left) != 1 {
		t.Errorf("Redact left work files: %v", left)
	}
}

func TestDiff(t *testing.T) {
	a, _ := writeTree(t, map[string]string{"nodes/w/a.json": "1", "nodes/w/b.json": "2", "findings.json": "x"}, Options{})
	b, _ := writeTree(t, map[string]string{"nodes/w/b.json": "3", "nodes/w/c.json": "4", "findings.json": "y"}, Options{})
	ba, err := Open(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := Open(b)
	if err != nil {
		t.Fatal(err)
	}
	d := Diff(ba, bb)
	if fmt.Sprint(d.Added, d.Removed, d.Changed) != "[nodes/w/c.json] [nodes/w/a.json] [nodes/w/b.json]" || d.Empty() {
		t.Errorf("Diff = %+v", d)
	}
	if !Diff(ba, ba).Empty() {
		t.Error("a bundle differs from itself")
	}
}

func TestDirSourceRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("{}"), 0o600)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "evil")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, err := Write(context.Background(), filepath.Join(t.TempDir(), "x.tar.gz"), DirSource(dir), Options{})
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("err = %v, want a refusal naming the symlink", err)
	}
}

func TestSpool(t *testing.T) {
	dir := t.TempDir()
	tree := treeOf(map[string]string{"nodes/a/x.log": "12345", "nodes/b/y.log": "1", "cluster/nodes.json": "{}"})
	n, size, err := Spool(tree, dir, func(p string) bool { return strings.HasPrefix(p, "nodes/a/") })
	if err != nil || n != 1 || size != 5 {
		t.Fatalf("Spool = %d files, %d bytes, %v", n, size, err)
	}
	st, err := os.Stat(filepath.Join(dir, "nodes", "a", "x.log"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("spooled file: %v, mode %v", err, st.Mode())
	}
	if _, err := os.Stat(filepath.Join(dir, "nodes", "b")); err == nil {
		t.Error("Spool copied a file pick refused")
	}
}
