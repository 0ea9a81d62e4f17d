// The seeded-secrets test lives in the external test package: it judges bundles with
// the probes, and engine may import ingest/bundle's dependencies but the
// bundle package itself must never import the probes. An external _test package may.
package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// nodePassword is the password the tool itself used to reach the nodes: the redactor
// is told it (AddLiteral) and it must go wherever it appears. The planted set is
// fixtures/secrets', shared with the cmd-level seeded test.
const nodePassword = secrets.NodePassword

// seededValues is every planted secret, the node address's (in Options) last.
var seededValues = secrets.Values()

func plant(t *testing.T, tree *evidence.Tree) {
	t.Helper()
	if err := secrets.Plant(tree); err != nil {
		t.Fatal(err)
	}
}

// untarAll returns every header name and body of a bundle, decompressed.
func untarAll(t *testing.T, p string) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return all.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(hdr.Name + "\n")
		if _, err := io.Copy(&all, tr); err != nil {
			t.Fatal(err)
		}
	}
}

// analyzeBundle writes tree into a bundle with r and judges the bundle read back.
func analyzeBundle(t *testing.T, tree *evidence.Tree, r *redact.Redactor) ([]probes.Finding, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "snap.tar.gz")
	nodes := map[string]bundle.Node{}
	for _, n := range tree.Evidence().Nodes() {
		nodes[n] = bundle.Node{Transport: "winrm-https", Address: "https://admin:SeedNodeAddrPw-37@10.0.0.5:5986/wsman",
			Error: "retried with -Password " + nodePassword}
	}
	if _, err := bundle.Write(context.Background(), dst, bundle.TreeSource(tree), bundle.Options{Redact: r, Nodes: nodes}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: b.FS()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got, dst
}

func sameFindings(t *testing.T, what string, want, got []probes.Finding) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	wj, _ := json.MarshalIndent(want, "", " ")
	gj, _ := json.MarshalIndent(got, "", " ")
	wl, gl := strings.Split(string(wj), "\n"), strings.Split(string(gj), "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			t.Errorf("%s: the redacted bundle judges differently; first difference at line %d:\n live:   %s\n bundle: %s", what, i+1, wl[i], gl[i])
			return
		}
	}
	t.Errorf("%s: the redacted bundle judges differently: %d lines of findings, live %d", what, len(gl), len(wl))
}

// TestSeededSecretsNeverReachTheBundle plants every kind of secret into every scenario,
// writes a bundle with default redaction (and the node password as a literal), and
// checks that no planted value is anywhere in the bundle's bytes and that the bundle
// judges exactly as the evidence did before it was bundled, with and without plants.
func TestSeededSecretsNeverReachTheBundle(t *testing.T) {
	// A layout may lack the file a kind is planted in (no CNI config on an AKS node
	// whose snippet failed): that scenario cannot carry the kind, but every kind must
	// be carried by some scenario.
	plantedSomewhere := map[string]bool{}
	defer func() {
		for _, s := range seededValues[:len(seededValues)-1] {
			if !plantedSomewhere[s] {
				t.Errorf("secret %q was planted in no scenario", s)
			}
		}
	}()
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			fsys, _, _, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			tree := evidence.NewTree()
			if err := tree.CopyFrom(fsys, "cluster", "nodes"); err != nil {
				t.Fatal(err)
			}
			live, err := engine.Analyze(context.Background(), probes.Default(), tree.Evidence(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := analyzeBundle(t, tree, redact.Default())
			sameFindings(t, name, live, got)

			plant(t, tree)
			live, err = engine.Analyze(context.Background(), probes.Default(), tree.Evidence(), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := redact.Default()
			if err := r.AddLiteral(nodePassword); err != nil {
				t.Fatal(err)
			}
			// The plants took: every value is in a bundle written without redaction.
			clear := filepath.Join(t.TempDir(), "clear.tar.gz")
			if _, err := bundle.Write(context.Background(), clear, bundle.TreeSource(tree), bundle.Options{NoRedact: true}); err != nil {
				t.Fatal(err)
			}
			clearBytes := untarAll(t, clear)
			for _, s := range seededValues[:len(seededValues)-1] { // the last is in Options, not the evidence
				if bytes.Contains(clearBytes, []byte(s)) {
					plantedSomewhere[s] = true
				} else {
					t.Logf("%q could not be planted here: the file it goes in is not in this scenario", s)
				}
			}
			got, dst := analyzeBundle(t, tree, r)
			sameFindings(t, name+" with secrets planted", live, got)
			raw := untarAll(t, dst)
			leaked := 0
			for _, s := range seededValues {
				if bytes.Contains(raw, []byte(s)) {
					leaked++
					t.Errorf("planted secret %q is in the bundle", s)
				}
			}
			if leaked != 0 {
				t.Errorf("%d of %d planted secrets leaked", leaked, len(seededValues))
			}
			for _, c := range r.Counts() {
				if strings.Contains(fmt.Sprint(c), "Seed") {
					t.Errorf("the redaction summary shows a value: %+v", c)
				}
			}
			if n := len(tree.Evidence().Nodes()); n > 0 && r.Total() < len(seededValues)-2 {
				t.Errorf("only %d values counted for %d kinds planted on %d nodes", r.Total(), len(seededValues), n)
			}
		})
	}
}

// TestFolderJudgesLikeTheEvidence: a scenario written to a folder and read through
// OpenEvidence (an os.Root with caps) judges exactly like the scenario itself.
func TestFolderJudgesLikeTheEvidence(t *testing.T) {
	for _, name := range scenarios.Names() {
		fsys, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		tree := evidence.NewTree()
		if err := tree.CopyFrom(fsys, "cluster", "nodes"); err != nil {
			t.Fatal(err)
		}
		want, err := engine.Analyze(context.Background(), probes.Default(), tree.Evidence(), nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, _, err := bundle.Spool(tree, dir, nil); err != nil {
			t.Fatal(err)
		}
		ev, source, closer, err := bundle.OpenEvidence(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.Analyze(context.Background(), probes.Default(), ev, nil)
		closer.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(source, "folder ") {
			t.Errorf("source %q", source)
		}
		sameFindings(t, name+" as a folder", want, got)
	}
}
