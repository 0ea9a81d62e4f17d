package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPagerWritesInCmd: the screen calls pager from Update, which must not do I/O; the
// evidence is written to a temporary file only when the returned Cmd runs.
func TestPagerWritesInCmd(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("PAGER", "true")
	cmd := pager("nodes/win-1/hns-networks.json", []byte(`[{"Name":"flannel"}]`))
	if cmd == nil {
		t.Fatal("no Cmd")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("pager wrote %v before its Cmd ran", entries)
	}
	if msg := cmd(); msg == nil {
		t.Fatal("the Cmd asked the program for nothing")
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "wts-evidence-*", "hns-networks.json"))
	if len(files) != 1 {
		t.Fatalf("the Cmd wrote %v", files)
	}
	if b, _ := os.ReadFile(files[0]); string(b) != `[{"Name":"flannel"}]` {
		t.Fatalf("pager file holds %q", b)
	}
}
