package evidence

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestTreeIndexIsAFileSystem: with its folder index, the tree's view still passes the
// standard library's file system checks (Open, Stat, ReadDir and ReadFile agree) after
// puts, replaces, removes and deletes, and a removed node's folder is gone.
func TestTreeIndexIsAFileSystem(t *testing.T) {
	tr := NewTree()
	tr.Put("cluster/nodes.json", []byte(`{}`))
	tr.PutAll("nodes/win-1", map[string][]byte{"host.json": []byte("1"), "kubelet.log": []byte("log")})
	tr.PutAll("nodes/win-2", map[string][]byte{"host.json": []byte("2"), "sweep.err": []byte("down")})
	tr.Put("nodes/win-3/deep/x.json", []byte("3"))
	tr.Replace("nodes/win-1", []string{"nodes/win-1/kubelet.log"}, map[string][]byte{"routes.json": []byte("[]")})
	tr.Remove("nodes/win-3")
	tr.Delete("nodes/win-2/sweep.err")
	ev := tr.Evidence()
	// ReadFile hands out the stored bytes, uncopied by design (Evidence), which TestFS
	// counts as an error; the rest of the view is checked as it is.
	if err := fstest.TestFS(noReadFile{ev.FS}, "cluster/nodes.json", "nodes/win-1/host.json", "nodes/win-1/routes.json", "nodes/win-2/host.json"); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"nodes/win-3", "nodes/win-3/deep", "nodes/win-1/kubelet.log", "nodes/win-2/sweep.err", "nodes/win-4"} {
		if _, err := fs.Stat(ev.FS, gone); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	if got := ev.Nodes(); len(got) != 2 || got[0] != "win-1" || got[1] != "win-2" {
		t.Errorf("nodes %v", got)
	}
	tr.Put("nodes/win-1/host.json", []byte("again")) // a replaced file is counted once
	tr.Remove("nodes/win-1")
	if got := ev.Nodes(); len(got) != 1 || got[0] != "win-2" {
		t.Errorf("after removing win-1: nodes %v", got)
	}
}

type noReadFile struct{ fsys fs.FS }

func (n noReadFile) Open(name string) (fs.File, error)          { return n.fsys.Open(name) }
func (n noReadFile) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(n.fsys, name) }
func (n noReadFile) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(n.fsys, name) }
