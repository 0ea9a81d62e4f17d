package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestReleaseArchive runs docs/krew/release.sh for this machine's platform and reads what
// a krew user gets: the binary, LICENSE (krew-index requires one), README.md, the RBAC
// the messages point to (docs/rbac.yaml), and kubectl's completion helper; every file the
// manifest installs is in the archive; the manifest written names the archive's sha256;
// the tracked manifest is left as it was; and the binary's version is its commit's.
func TestReleaseArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release archive")
	}
	for _, tool := range []string{"git", "sh", "tar", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	script := filepath.Join("..", "..", "docs", "krew", "release.sh")
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	// GNU-only spellings: macOS's sed and tar refuse them.
	if m := regexp.MustCompile(`sed -i|--sort=|--mtime=|readlink -f`).Find(src); m != nil {
		t.Errorf("release.sh uses %q, which only GNU tools know", m)
	}
	tracked := filepath.Join("..", "..", "docs", "krew", "wintroubleshoot.yaml")
	before, _ := os.ReadFile(tracked)
	dist := t.TempDir()
	plat := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("sh", script, "v0.0.1-test")
	cmd.Env = append(os.Environ(), "DIST="+dist, "PLATFORMS="+plat)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(tracked); !bytes.Equal(before, after) {
		t.Error("release.sh rewrote the tracked manifest")
	}
	name := "kubectl-wintroubleshoot_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	archive, err := os.ReadFile(filepath.Join(dist, name))
	if err != nil {
		t.Fatal(err)
	}
	files := untar(t, archive)
	for _, want := range []string{"kubectl-wintroubleshoot", "LICENSE", "README.md", "docs/rbac.yaml", "kubectl_complete-wintroubleshoot"} {
		if _, ok := files[want]; !ok {
			t.Errorf("the archive lacks %s (has %v)", want, keys(files))
		}
	}
	if !strings.Contains(string(files["LICENSE"]), "Apache License") || !strings.Contains(string(files["kubectl_complete-wintroubleshoot"]), "__complete") {
		t.Error("LICENSE or the completion helper is not what it should be")
	}
	var man krewPlugin
	b, err := os.ReadFile(filepath.Join(dist, "wintroubleshoot.yaml"))
	if err != nil || yaml.UnmarshalStrict(b, &man) != nil {
		t.Fatalf("dist/wintroubleshoot.yaml: %v", err)
	}
	sum := sha256.Sum256(archive)
	for _, pl := range man.Spec.Platforms {
		if !strings.HasSuffix(pl.URI, "/v0.0.1-test/"+name) {
			continue
		}
		if pl.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("manifest sha256 %s, archive %x", pl.Sha256, sum)
		}
		for _, f := range pl.Files {
			if _, ok := files[f.From]; !ok {
				t.Errorf("the manifest installs %s, which the archive lacks", f.From)
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "kubectl-wintroubleshoot")
	os.WriteFile(bin, files["kubectl-wintroubleshoot"], 0o755)
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	var v versionInfo
	if err != nil || json.Unmarshal(out, &v) != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	if v.Version != "v0.0.1-test" || v.Revision != strings.TrimSpace(string(head)) || v.Time == "" || v.Modified {
		t.Errorf("the release binary says %+v (HEAD %s)", v, head)
	}
}

func untar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			files[strings.TrimPrefix(h.Name, "./")], _ = io.ReadAll(tr)
		}
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
