package evidence

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// deniedFS refuses to open one path, as a folder without read permission does.
type deniedFS struct {
	fs.FS
	denied string
}

func (d deniedFS) Open(name string) (fs.File, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

func TestListNodesReportsWhatNodesHides(t *testing.T) {
	tree := fstest.MapFS{
		"nodes/win-2/host.json": {Data: []byte("{}")},
		"nodes/win-1":           {Data: []byte("{}")}, // meant as a node, but a file
		"nodes/win-3/.keep":     {},
	}
	ev := Evidence{FS: tree}
	l, err := ev.ListNodes()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Names, []string{"win-2", "win-3"}) || !slices.Equal(l.NotFolders, []string{"win-1"}) {
		t.Errorf("ListNodes = %+v, want folders win-2, win-3 and the file win-1 reported", l)
	}
	if got := ev.Nodes(); !slices.Equal(got, l.Names) {
		t.Errorf("Nodes = %v, want %v", got, l.Names)
	}

	// No nodes/ at all: cluster evidence alone, no error.
	if l, err := (Evidence{FS: fstest.MapFS{"cluster/nodes.json": {}}}).ListNodes(); err != nil || len(l.Names)+len(l.NotFolders) != 0 {
		t.Errorf("no nodes/: %+v, %v", l, err)
	}

	// An unreadable nodes/ is an error naming the folder and the cause, not "no nodes".
	_, err = Evidence{FS: deniedFS{FS: tree, denied: "nodes"}}.ListNodes()
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "nodes/") {
		t.Errorf("unreadable nodes/: %v", err)
	}

	// nodes itself a file.
	_, err = Evidence{FS: fstest.MapFS{"nodes": {Data: []byte("x")}}}.ListNodes()
	if err == nil || !strings.Contains(err.Error(), "nodes is a file, not a folder") {
		t.Errorf("nodes as a file: %v", err)
	}
}

// On a real folder: a link to a node folder counts as a node, a mode-000 nodes/ is an
// error (when not running as root, which reads it anyway).
func TestListNodesOnAFolder(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"nodes/win-1", "elsewhere/win-2"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../elsewhere/win-2", filepath.Join(dir, "nodes", "win-2")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nodes", "win-3.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Evidence{FS: os.DirFS(dir)}.ListNodes()
	if err != nil || !slices.Equal(l.Names, []string{"win-1", "win-2"}) || !slices.Equal(l.NotFolders, []string{"win-3.json"}) {
		t.Errorf("ListNodes = %+v, %v", l, err)
	}
	if os.Geteuid() == 0 {
		return
	}
	nodes := filepath.Join(dir, "nodes")
	if err := os.Chmod(nodes, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(nodes, 0o755) })
	if _, err := (Evidence{FS: os.DirFS(dir)}).ListNodes(); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("mode-000 nodes/: %v", err)
	}
}
