package redact

import (
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
