package bundle

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// intakeFiles are raw evidence with secrets a customer's folder or a --no-redact bundle
// holds.
var intakeFiles = map[string]string{
	"nodes/win-1/kubelet.log":   "I0301 setup SECRET_KEY=SeedIntake-61 done\nI0301 token ghp_0123456789abcdefghijABCDEFGHIJ012345\n",
	"nodes/win-1/services.json": `[{"Name":"kubelet","PathName":"kubelet.exe --token=SeedIntake-62"}]`,
	"cluster/nodes.json":        `{"kind":"List","items":[]}`,
}

// TestOpenEvidenceReadsRedacted: a folder and a bundle written with --no-redact are read
// redacted by whatever opens them with OpenEvidence (analyze, compare, completion):
// fs.ReadFile, Open and WalkDir alike, JSON kept JSON. Before, they were read raw, and
// probes' excerpts, the pager and the copy of such evidence held the secrets.
func TestOpenEvidenceReadsRedacted(t *testing.T) {
	dir := t.TempDir()
	for p, body := range intakeFiles {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := writeTree(t, intakeFiles, Options{NoRedact: true})
	for _, src := range []string{dir, raw} {
		ev, _, closer, err := OpenEvidence(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		err = fs.WalkDir(ev.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || intakeFiles[p] == "" {
				return err
			}
			seen++
			b, err := fs.ReadFile(ev.FS, p)
			if err != nil {
				return err
			}
			st, err := fs.Stat(ev.FS, p)
			if err != nil {
				return err
			}
			if strings.Contains(string(b), "SeedIntake") || strings.Contains(string(b), "0123456789abcdefghij") {
				t.Errorf("%s: %s reads unredacted: %s", src, p, b)
			}
			if st.Size() != int64(len(b)) {
				t.Errorf("%s: %s: size %d, read %d bytes", src, p, st.Size(), len(b))
			}
			if strings.HasSuffix(p, ".json") && !json.Valid(b) {
				t.Errorf("%s: %s is no longer JSON: %s", src, p, b)
			}
			return nil
		})
		closer.Close()
		if err != nil || seen != len(intakeFiles) {
			t.Fatalf("%s: walked %d of %d files: %v", src, seen, len(intakeFiles), err)
		}
	}
}
