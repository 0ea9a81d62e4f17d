package fakenode

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestDirListIsNetHTTPs: the fake kubelet's listing of its log folder is byte for byte
// what net/http's FileServer prints for a folder with the same entries, so a client that
// recognizes the fake's listing recognizes the kubelet's.
func TestDirListIsNetHTTPs(t *testing.T) {
	dir := t.TempDir()
	entries := []dirEntry{{"pods", true}, {"containers", true}, {"kube-proxy", true}, {"a&b <c>", true}, {"kubelet.log", false}}
	for _, e := range entries {
		p := filepath.Join(dir, e.name)
		var err error
		if e.dir {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	real := httptest.NewRecorder()
	http.FileServer(http.Dir(dir)).ServeHTTP(real, httptest.NewRequest(http.MethodGet, "/?query=kubelet", nil))
	fake := httptest.NewRecorder()
	serveDirList(fake, entries)
	if real.Body.String() != fake.Body.String() || real.Header().Get("Content-Type") != fake.Header().Get("Content-Type") {
		t.Fatalf("net/http lists:\n%s(%s)\nthe fake lists:\n%s(%s)", real.Body, real.Header().Get("Content-Type"),
			fake.Body, fake.Header().Get("Content-Type"))
	}
}
