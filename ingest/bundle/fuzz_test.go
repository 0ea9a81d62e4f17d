package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// A bundle comes from someone else: Open must refuse or accept any bytes without
// panicking, hanging or writing anything.
func FuzzOpen(f *testing.F) {
	tree := evidence.NewTree()
	tree.Put("cluster/nodes.json", []byte(`{"kind":"List","items":[]}`))
	tree.Put("nodes/win-1/routes.json", []byte("[]\r\n"))
	seed := filepath.Join(f.TempDir(), "seed.tar.gz")
	if _, err := Write(context.Background(), seed, TreeSource(tree), Options{Tool: "fuzz"}); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte("not a bundle"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "b.tar.gz")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = Open(p)
	})
}

// tight are limits fuzzing can cross with a few hundred bytes.
func tight() Limits {
	return Limits{MaxNodeJSON: 64, MaxClusterJSON: 128, MaxText: 32, MaxLog: 48, MaxEntry: 4096, MaxTotal: 1 << 16,
		MaxManifest: 1 << 14, MaxEntries: 64, MaxNodes: 4, MaxDepth: 4, MaxNameLen: 100}
}

// FuzzOpenCapped fuzzes the tar stream inside the gzip (random gzip bytes seldom get
// that far): whatever the entries, the bundle is refused or every file read from it is
// within its kind's cap, and a file refused for its size says so with a *LimitError.
func FuzzOpenCapped(f *testing.F) {
	var items []Item
	var entries []rawEntry
	for name, body := range map[string]string{
		"nodes/win-1/host.json":      `{"CsName": "WIN-1", "OsBuildNumber": "17763"}`,
		"nodes/win-1/kubelet.log":    strings.Repeat("I0101 line of a kubelet log\n", 4),
		"nodes/win-1/processes.json": "[" + strings.Repeat(`{"Name":"x"},`, 8) + `{}]`,
		"cluster/nodes.json":         `{"kind":"List","items":[]}`,
	} {
		sum := sha256.Sum256([]byte(body))
		items = append(items, Item{Path: name, Status: StatusOK, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
		entries = append(entries, fileEntry(name, body))
	}
	m := Manifest{FormatVersion: FormatVersion, Items: items}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range append(entries, manifestEntryOf(f, m)) {
		h := e.hdr
		h.Size = int64(len(e.body))
		tw.WriteHeader(&h)
		tw.Write(e.body)
	}
	tw.Close()
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:700])
	f.Fuzz(func(t *testing.T, tarBytes []byte) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(tarBytes)
		zw.Close()
		p := filepath.Join(t.TempDir(), "b.tar.gz")
		if err := os.WriteFile(p, gz.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		lim := tight()
		b, err := OpenLimits(context.Background(), p, lim)
		if err != nil {
			return
		}
		defer b.Close()
		fs.WalkDir(b.FS(), ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := fs.ReadFile(b.FS(), name)
			kind, limit := lim.kindOf(name)
			var le *LimitError
			switch {
			case errors.As(err, &le):
				if kind == kindLog || le.Size <= limit {
					t.Errorf("%s refused (%v), but it is a log or within the cap %d", name, err, limit)
				}
			case err != nil:
			case int64(len(data)) > limit+int64(len(tailMarker(1<<40, limit))):
				t.Errorf("%s: read %d bytes, cap %d", name, len(data), limit)
			}
			return nil
		})
	})
}

func manifestEntryOf(tb testing.TB, m Manifest) rawEntry {
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return fileEntry(evidence.BundleManifest, string(b))
}

// FuzzFolderConfined: no path, however crafted, reads a file outside the folder, though
// the folder holds links that point out of it.
func FuzzFolderConfined(f *testing.F) {
	base := f.TempDir()
	root := filepath.Join(base, "evidence")
	os.MkdirAll(filepath.Join(root, "nodes", "win-1"), 0o755)
	os.WriteFile(filepath.Join(base, "kubeconfig"), []byte("token: OUTSIDE-SECRET\n"), 0o600)
	os.WriteFile(filepath.Join(root, "nodes", "win-1", "routes.json"), []byte("[]"), 0o600)
	if os.Symlink(filepath.Join(base, "kubeconfig"), filepath.Join(root, "nodes", "win-1", "host.json")) != nil ||
		os.Symlink("..", filepath.Join(root, "up")) != nil || os.Symlink("nodes/win-1", filepath.Join(root, "win")) != nil {
		f.Skip("cannot make symlinks here")
	}
	folder, err := OpenFolder(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { folder.Close() })
	for _, s := range []string{"nodes/win-1/host.json", "up/kubeconfig", "win/host.json", "win/routes.json", "../kubeconfig", "nodes/../up/kubeconfig"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		b, err := fs.ReadFile(folder.FS(), name)
		if err == nil && bytes.Contains(b, []byte("OUTSIDE-SECRET")) {
			t.Fatalf("read %q: got the file outside the folder", name)
		}
	})
}
