package bundle

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
)

// A bundle comes from someone else: Open must refuse or accept any bytes without
// panicking, hanging or writing anything.
func FuzzOpen(f *testing.F) {
	tree := collectors.NewTree()
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
