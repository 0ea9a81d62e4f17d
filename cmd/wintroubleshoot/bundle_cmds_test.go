package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/gzip"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// runBundleCmd runs the bundle commands (and analyze) under a root like the real one,
// mapping errors to exit codes as Run does.
func runBundleCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	kube := genericclioptions.NewConfigFlags(true)
	live := &liveOptions{kube: kube}
	root := &cobra.Command{Use: "wintroubleshoot", SilenceUsage: true, SilenceErrors: true}
	kube.AddFlags(root.PersistentFlags())
	root.AddCommand(newSnapshotCmd(streams, live), newRedactCmd(streams), newDiffCmd(streams), newAnalyzeCmd(streams))
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errOut)
	err := root.ExecuteContext(t.Context())
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.code
		if ee.err != nil {
			errOut.WriteString("error: " + ee.err.Error() + "\n")
		}
	default:
		code = report.ExitUsage
		errOut.WriteString("error: " + err.Error() + "\n")
	}
	return code, out.String(), errOut.String()
}

// scenarioWithLogs is the routes-missing scenario's win-1 plus what a snapshot adds,
// with secrets where they turn up.
func scenarioWithLogs(t *testing.T) fs.FS {
	t.Helper()
	base := os.DirFS("../../fixtures/scenarios/routes-missing")
	m := fstest.MapFS{}
	err := fs.WalkDir(base, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(base, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	add := func(name, body string) { m["nodes/win-1/"+name] = &fstest.MapFile{Data: []byte(body)} }
	add(evidence.FileLogKubelet, "I0102 03:04:05.000000 1 x.go:1] GET Authorization: Bearer SnapshotBearerSecret123\r\n")
	add(evidence.FileLogKubeProxy, "I0102 03:04:05.000000 1 proxier.go:1] syncProxyRules\r\n")
	add(evidence.FileHNSEndpoints, `[{"ID": "ep-1", "IPAddress": "10.244.1.5"}]`)
	add(evidence.FileEventsSCM, `[{"Id": 7031, "Message": "The kubelet service terminated unexpectedly."}]`)
	return m
}

func TestSnapshotEndToEnd(t *testing.T) {
	node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenarioWithLogs(t), Node: "win-1"})
	srv, err := fakenode.StartWinRM(t.Context(), node, fakenode.WinRMOptions{User: "Administrator", Password: "pw", Basic: true, AllowUnencrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	os.MkdirAll(filepath.Join(state, "wintroubleshoot"), 0o700)
	os.WriteFile(filepath.Join(state, "wintroubleshoot", "audit.jsonl"), []byte(`{"fix":"add-routes","cmd":"x --password=AuditPw99"}`+"\n"), 0o600)
	t.Setenv("WTS_TEST_PW", "pw")
	t.Setenv("KUBECONFIG", "")
	out := filepath.Join(t.TempDir(), "snap.tar.gz")

	noClusterHere(t)
	code, stdout, stderr := runBundleCmd(t, "snapshot", out,
		"--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http", "--password-env", "WTS_TEST_PW", "--node", "win-1="+srv.Addr(),
		"--since", "48h", "--max-log-size", "1Mi")
	if code != report.ExitOK && code != report.ExitFindings {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "snapshot: win-1: ") || !strings.Contains(stdout, "wrote "+out) || !strings.Contains(stdout, "bearer-token 1") {
		t.Errorf("progress or summary missing\nstdout: %s\nstderr: %s", stdout, stderr)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatalf("the snapshot does not verify: %v", err)
	}
	m := b.Manifest()
	if n := m.Nodes["win-1"]; n.Transport != "winrm" || n.Address != srv.Addr() {
		t.Errorf("manifest node = %+v", n)
	}
	for p, status := range map[string]string{
		"nodes/win-1/" + evidence.FileLogKubelet:  bundle.StatusOK,
		"nodes/win-1/" + evidence.FileRoutes:      bundle.StatusOK,
		"nodes/win-1/" + evidence.FileLogFlanneld: bundle.StatusError, // the scenario has none
		evidence.BundleFindings:                   bundle.StatusOK,
		evidence.BundleReport:                     bundle.StatusOK,
		evidence.BundleAudit:                      bundle.StatusOK,
	} {
		if it, ok := m.Item(p); !ok || it.Status != status {
			t.Errorf("item %s = %+v, want status %s", p, it, status)
		}
	}
	f, err := b.FS().Open(evidence.BundleFindings)
	if err != nil {
		t.Fatal(err)
	}
	meta, findings, err := report.Read(f)
	f.Close()
	if err != nil || len(findings) == 0 || meta.Time.IsZero() {
		t.Errorf("findings.json: %v, %d findings, time %v", err, len(findings), meta.Time)
	}
	if want := report.ExitCode(findings, report.DefaultFailOn); code != want {
		t.Errorf("snapshot exit %d, but its findings say %d", code, want)
	}
	raw := gunzipBytes(t, out)
	for _, secret := range []string{"SnapshotBearerSecret123", "AuditPw99"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("secret %s reached the bundle", secret)
		}
	}
	// The log snippets got their parameters as data.
	var sawParams bool
	for _, c := range node.Commands() {
		for i, name := range c.Calls {
			if name == evidence.FileLogKubelet {
				p := c.Params[i]
				sawParams = p["MaxBytes"] == float64(1<<20) && strings.HasSuffix(p["Since"].(string), "Z")
			}
		}
	}
	if !sawParams {
		t.Errorf("log snippets did not get MaxBytes and Since: %+v", node.Commands())
	}
	// analyze reads the bundle back and judges it the same.
	want := code
	code, stdout, stderr = runBundleCmd(t, "analyze", out, "-o", "json")
	if code != want || !strings.Contains(stdout, `"source": "bundle `+out) {
		t.Errorf("analyze: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestBundleCommandsHelp(t *testing.T) {
	for _, c := range []string{"snapshot", "redact", "diff"} {
		if code, out, _ := runBundleCmd(t, c, "--help"); code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", c, code, out)
		}
	}
}

func TestSnapshotUsageErrors(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "r.yaml")
	os.WriteFile(rules, []byte("- name: x\n  regex: '('\n"), 0o600)
	for _, args := range [][]string{
		{"snapshot"},
		{"snapshot", "x.tar.gz", "--no-redact", "--redact-rules", rules},
		{"snapshot", "x.tar.gz", "--redact-rules", rules},
		{"snapshot", "x.tar.gz", "--max-log-size", "lots"},
		{"snapshot", "/no/such/dir/x.tar.gz"},
	} {
		if code, _, stderr := runBundleCmd(t, args...); code != report.ExitUsage || !strings.Contains(stderr, "error: ") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// writeCase writes a bundle holding findings.json and the given evidence.
func writeCase(t *testing.T, findings []probes.Finding, files map[string]string, opts bundle.Options) string {
	t.Helper()
	tree := evidence.NewTree()
	for p, s := range files {
		tree.Put(p, []byte(s))
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, report.JSON, report.Meta{Tool: "wintroubleshoot"}, findings, report.Options{}); err != nil {
		t.Fatal(err)
	}
	tree.Put(evidence.BundleFindings, buf.Bytes())
	dst := filepath.Join(t.TempDir(), "case.tar.gz")
	if _, err := bundle.Write(context.Background(), dst, bundle.TreeSource(tree), opts); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestDiffCommand(t *testing.T) {
	f := func(node, probe string, s probes.Status, summary string) probes.Finding {
		return probes.Finding{Node: node, Probe: probe, Status: s, Summary: summary}
	}
	a := writeCase(t, []probes.Finding{f("win-1", "HNS", probes.Pass, "network ok"), f("win-1", "ROUTES", probes.Fail, "2 routes missing"),
		f("win-2", "REACH", probes.Error, "unreachable")}, map[string]string{"nodes/win-1/routes.json": "[]", "nodes/win-2/sweep.err": "x"}, bundle.Options{})
	b := writeCase(t, []probes.Finding{f("win-1", "HNS", probes.Fail, "network missing"), f("win-1", "ROUTES", probes.Fail, "1 route missing"),
		f("win-1", "PAUSE", probes.Warn, "untagged")}, map[string]string{"nodes/win-1/routes.json": `[{"x":1}]`, "nodes/win-1/disk.json": "{}"}, bundle.Options{})
	code, stdout, stderr := runBundleCmd(t, "diff", a, b)
	if code != report.ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"win-1 HNS: pass -> fail: network missing", "win-1 PAUSE: new, warn: untagged",
		"win-1 ROUTES: still fail, changed: 1 route missing", "win-2 REACH: gone, was error: unreachable",
		"+ nodes/win-1/disk.json", "- nodes/win-2/sweep.err", "~ nodes/win-1/routes.json"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff output lacks %q:\n%s", want, stdout)
		}
	}
	if code, stdout, _ := runBundleCmd(t, "diff", a, a); code != 0 || !strings.Contains(stdout, "no differences") {
		t.Errorf("diff of a bundle with itself: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runBundleCmd(t, "diff", a, filepath.Join(t.TempDir(), "missing.tar.gz")); code != report.ExitUsage {
		t.Errorf("diff with a missing bundle: exit %d, %s", code, stderr)
	}
}

func TestRedactCommand(t *testing.T) {
	in := writeCase(t, nil, map[string]string{"nodes/win-1/kubelet.log": "token: PlainTokenValue\nticket TK-4711\n"}, bundle.Options{NoRedact: true})
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	os.WriteFile(rules, []byte("- name: ticket\n  regex: 'TK-\\d+'\n"), 0o600)
	out := filepath.Join(t.TempDir(), "redacted.tar.gz")
	code, stdout, stderr := runBundleCmd(t, "redact", in, out, "--redact-rules", rules)
	if code != 0 || !strings.Contains(stdout, "2 values redacted now") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	raw := gunzipBytes(t, out)
	if bytes.Contains(raw, []byte("PlainTokenValue")) || bytes.Contains(raw, []byte("TK-4711")) {
		t.Error("redact left a secret")
	}
	b, err := bundle.Open(out)
	if err != nil || !b.Manifest().Redacted {
		t.Fatalf("redacted bundle: %v", err)
	}
}

func gunzipBytes(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
