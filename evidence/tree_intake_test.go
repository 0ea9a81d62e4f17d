package evidence

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestTreeIntake: every way into a tree (Put, PutAll, Replace, CopyFrom) passes the
// intake, with the file's full path; reads see what it returned.
func TestTreeIntake(t *testing.T) {
	tree := NewTree()
	var paths []string
	tree.SetIntake(func(p string, b []byte) []byte {
		paths = append(paths, p)
		return []byte(strings.ReplaceAll(string(b), "secret", "***"))
	})
	tree.Put("cluster/a.json", []byte("secret a"))
	tree.PutAll("nodes/w", map[string][]byte{"b.log": []byte("secret b")})
	tree.Replace("nodes/w", []string{"nodes/w/b.log"}, map[string][]byte{"c.log": []byte("secret c")})
	if err := tree.CopyFrom(fstest.MapFS{"cluster/d.json": {Data: []byte("secret d")}}); err != nil {
		t.Fatal(err)
	}
	ev := tree.Evidence()
	for _, p := range []string{"cluster/a.json", "nodes/w/c.log", "cluster/d.json"} {
		b, err := ev.Read(p)
		if err != nil || strings.Contains(string(b), "secret") {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if want := "cluster/a.json nodes/w/b.log nodes/w/c.log cluster/d.json"; strings.Join(paths, " ") != want {
		t.Errorf("intake saw %v, want %s", paths, want)
	}
}
