package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// plantedScenario is a scenario with every kind of secret planted (fixtures/secrets),
// as an FS a fake node serves and the API server is seeded from.
func plantedScenario(t *testing.T, name string) fs.FS {
	t.Helper()
	src, _, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	tree := evidence.NewTree()
	if err := tree.CopyFrom(src); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Plant(tree); err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, p := range tree.Paths() {
		b, err := tree.Evidence().Read(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = &fstest.MapFile{Data: b}
	}
	return out
}

// TestSeededSecretsLive: a real API server whose pods carry secrets in env and args,
// with a Secret, and a node whose evidence holds every kind of secret, reached with the
// seeded node password: --report in every format and a snapshot hold none of them.
func TestSeededSecretsLive(t *testing.T) {
	cl := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	planted := plantedScenario(t, "routes-missing")
	served := withPodUIDs(t, planted, seed(t, cs, planted))
	ctx := context.Background()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "seeded", Namespace: "default"},
		Data: map[string][]byte{"password": []byte("SeedClusterSecret-41")}}
	if _, err := cs.CoreV1().Secrets("default").Create(ctx, sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WTS_PASSWORD", secrets.NodePassword)
	srv, err := fakenode.StartWinRM(ctx, fakenode.NewNode(fakenode.NodeOptions{Scenario: served, Node: "win-1"}),
		fakenode.WinRMOptions{User: "Administrator", Password: secrets.NodePassword, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, srv.CertPEM(), 0o600)
	access := []string{"--kubeconfig", cl.Kubeconfig, "--winrm-ca-file", ca, "--node", "win-1=winrm-https://" + srv.Addr()}
	values := append(secrets.Values(), "SeedClusterSecret-41")

	check := func(what string, b []byte) {
		t.Helper()
		for _, v := range values {
			if n := bytes.Count(b, []byte(v)); n != 0 {
				t.Errorf("%s: %q appears %d times", what, v, n)
			}
		}
	}
	for _, f := range report.Formats() {
		code, out, errOut := run(t, append([]string{"--report", "-o", string(f)}, access...)...)
		if code != report.ExitFindings {
			t.Fatalf("--report -o %s: exit %d: %s", f, code, errOut)
		}
		check("--report -o "+string(f), []byte(out+errOut))
	}
	snap := filepath.Join(dir, "seeded.tar.gz")
	code, out, errOut := run(t, append([]string{"snapshot", snap}, access...)...)
	if code != report.ExitFindings {
		t.Fatalf("snapshot: exit %d: %s", code, errOut)
	}
	check("snapshot's output", []byte(out+errOut))
	raw, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	check("the bundle's bytes", raw)
	check("the bundle's files", untarBundle(t, raw))
	for _, f := range report.Formats() {
		_, out, errOut := run(t, "analyze", snap, "-o", string(f))
		check("analyze -o "+string(f), []byte(out+errOut))
	}

	// The same snapshot unredacted holds them: the test above counted real secrets.
	bare := filepath.Join(dir, "bare.tar.gz")
	if code, _, errOut := run(t, append([]string{"snapshot", bare, "--no-redact"}, access...)...); code != report.ExitFindings {
		t.Fatalf("snapshot --no-redact: exit %d: %s", code, errOut)
	}
	rawBare, err := os.ReadFile(bare)
	if err != nil {
		t.Fatal(err)
	}
	files, reached := untarBundle(t, rawBare), 0
	for _, v := range values {
		if bytes.Contains(files, []byte(v)) {
			reached++
		}
	}
	t.Logf("%d of %d planted secrets reach an unredacted bundle; 0 reach any output with redaction", reached, len(values))
	if reached < len(values)/2 {
		t.Errorf("only %d of %d planted secrets reach even an unredacted bundle: the plant missed", reached, len(values))
	}
}

// untarBundle is every entry name and body of a bundle, decompressed.
func untarBundle(t *testing.T, raw []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
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
