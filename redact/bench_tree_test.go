package redact

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"testing"
)

// scenarioTree is every evidence file of the recorded scenarios (fixtures/scenarios):
// kubectl JSON, PowerShell ConvertTo-Json, node logs, configs, UTF-16 files, as a
// support case holds them.
func scenarioTree(tb testing.TB) map[string][]byte {
	tb.Helper()
	root := os.DirFS("../fixtures/scenarios")
	out := map[string][]byte{}
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if path.Ext(p) == ".go" || path.Ext(p) == ".md" {
			return nil // the generator's and the large-node builder's source, not evidence
		}
		b, err := fs.ReadFile(root, p)
		out[p] = b
		return err
	})
	if err != nil {
		tb.Skipf("no scenario tree: %v", err)
	}
	return out
}

// BenchmarkRedactScenarioTree redacts every scenario's evidence once, file by file, as
// intake does.
func BenchmarkRedactScenarioTree(b *testing.B) {
	tree := scenarioTree(b)
	var size int64
	for _, v := range tree {
		size += int64(len(v))
	}
	r := Default()
	b.SetBytes(size)
	for b.Loop() {
		for p, v := range tree {
			r.Bytes(path.Base(p), v)
		}
	}
}

// TestScenarioTreeNotRedacted is the false-positive budget: the recorded scenarios hold
// no secret, but image digests, hashes, GUIDs, HNS IDs, thumbprints and base64 blobs
// galore; the redactor (built-in and gitleaks' rules) must replace none of them, or the
// probes would judge other evidence than the node gave.
func TestScenarioTreeNotRedacted(t *testing.T) {
	r := Default()
	tree := scenarioTree(t)
	for p, v := range tree {
		if out := r.Bytes(path.Base(p), v); !bytes.Equal(out, v) {
			t.Errorf("%s: redacted", p)
		}
	}
	if c := r.Counts(); len(c) > 0 {
		t.Errorf("%d files of %d redacted: %v", len(c), len(tree), c[:min(len(c), 10)])
	}
}
