//go:build unix

package bundle

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe would block the reader forever: it is refused before it is opened.
func TestFolderRefusesSpecialFiles(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "nodes", "win-1"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(root, "nodes", "win-1", "host.json"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := OpenFolder(root)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fs.ReadFile(f.FS(), "nodes/win-1/host.json"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("reading a named pipe: %v", err)
	}
}
