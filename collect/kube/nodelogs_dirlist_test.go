package kube

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsDirList: net/http's own listing of a folder (as this Go prints it) and the
// pre-1.21 form are listings; logs, even ones quoting HTML, are not.
func TestIsDirList(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"containers", "pods", "kubelet"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	http.FileServer(http.Dir(dir)).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	empty := httptest.NewRecorder()
	http.FileServer(http.Dir(t.TempDir())).ServeHTTP(empty, httptest.NewRequest(http.MethodGet, "/", nil))
	for _, listing := range []string{rec.Body.String(), empty.Body.String(), "<pre>\n<a href=\"kubelet/\">kubelet/</a>\n</pre>\n"} {
		if !isDirList(strings.TrimSpace(listing)) {
			t.Errorf("not recognized as a listing:\n%s", listing)
		}
	}
	for _, log := range []string{kubeletLogLine, "<pre>\n" + kubeletLogLine + "</pre>", "<!doctype html>\n<p>hello</p>"} {
		if isDirList(strings.TrimSpace(log)) {
			t.Errorf("a log taken for a listing:\n%s", log)
		}
	}
}

const kubeletLogLine = "I0502 09:14:07.123456    4242 server.go:1] <a href=\"x\">first</a>\n"
