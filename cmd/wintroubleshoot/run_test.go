package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// run calls the program as a user would, returning exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := Run(context.Background(), streams, args)
	return code, out.String(), errOut.String()
}

// scenarioDir writes a scenario to disk, as a support engineer's folder.
func scenarioDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	sub, err := fs.Sub(scenarios.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAnalyzeExitCodes(t *testing.T) {
	healthy := scenarioDir(t, "healthy-containerd-overlay")
	broken := scenarioDir(t, "routes-missing")
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"analyze", healthy}, 0, "✓"},
		{[]string{"analyze", broken}, 1, "NET-ROUTES"},
		{[]string{"--report", "--from", broken, "-o", "json"}, 1, `"schemaVersion": 2`},
		{[]string{"analyze", broken, "--fail-on", "error"}, 0, "NET-ROUTES"},
		{[]string{"analyze", scenarioDir(t, "healthy-sdn-l2bridge-docker"), "--fail-on", "warn"}, 1, "SVC-REBOOT"},
		{[]string{"analyze", broken, "-o", "markdown"}, 1, "| Node | Status |"},
		{[]string{"analyze", broken, "-o", "junit"}, 1, "<testsuites"},
		{[]string{"analyze", filepath.Join(t.TempDir(), "nope")}, 2, ""},
		{[]string{"analyze", t.TempDir()}, 2, ""},
		{[]string{"analyze", broken, "-o", "xml"}, 2, ""},
		{[]string{"analyze", broken, "--fail-on", "pass"}, 2, ""},
		{[]string{"--no-such-flag"}, 2, ""},
		{[]string{"--from", broken}, 2, ""},
	}
	for _, c := range cases {
		code, out, errOut := run(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("%v: exit %d (want %d), stdout %.200q, stderr %q", c.args, code, c.code, out, errOut)
		}
		if c.code == 2 && (errOut == "" || strings.Count(strings.TrimSpace(errOut), "\n") > 2) {
			t.Errorf("%v: a usage error must say what is wrong in a line or two, got %q", c.args, errOut)
		}
	}
}

// TestAnalyzeBadEvidence: a truncated file and an unknown node give clear findings that
// name the file, and the other nodes are still judged.
func TestAnalyzeBadEvidence(t *testing.T) {
	dir := scenarioDir(t, "routes-missing")
	bad := filepath.Join(dir, "nodes", "win-1", "services.json")
	if err := os.WriteFile(bad, []byte("[{\"Name\": \"kube"), 0o644); err != nil {
		t.Fatal(err)
	}
	ghost := filepath.Join(dir, "nodes", "win-9")
	if err := os.MkdirAll(ghost, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ghost, "routes.json"), []byte("\xff\xfe\x00\xd8"), 0o644)
	code, out, _ := run(t, "analyze", dir, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Findings []struct{ Probe, Node, Status, Summary string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var namesFile, ghostSaid, routesJudged bool
	for _, f := range doc.Findings {
		if f.Node == "win-1" && f.Status == "error" && strings.Contains(f.Summary, "nodes/win-1/services.json") {
			namesFile = true
		}
		// A node the complete node list lacks is "not registered" (NODE-READY fails).
		if f.Node == "win-9" && (f.Status == "error" || f.Status == "fail") && strings.Contains(f.Summary, "win-9") {
			ghostSaid = true
		}
		if f.Node == "win-1" && f.Probe == "NET-ROUTES" && f.Status == "fail" {
			routesJudged = true
		}
	}
	if !namesFile || !ghostSaid || !routesJudged {
		t.Fatalf("names the file %v, unknown node said %v, others judged %v:\n%s", namesFile, ghostSaid, routesJudged, out)
	}
}

func TestHelpExplainsWithExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"analyze", "--help"}, {"fix", "--help"}, {"demo", "--help"}, {"fakenode", "--help"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%v: exit %d, no examples:\n%s", args, code, out)
		}
	}
	_, out, _ := run(t, "--help")
	for _, flag := range []string{"--password ", "--token ", "--username "} {
		if strings.Contains(out, flag) {
			t.Errorf("--help offers %s: credentials must not go on the command line", strings.TrimSpace(flag))
		}
	}
	for _, flag := range []string{"--kubeconfig", "--context", "--namespace", "--output", "--fail-on", "--node", "--password-secret", "--winrm-ca-file", "--ssh-known-hosts", "--concurrency"} {
		if !strings.Contains(out, flag) {
			t.Errorf("--help does not explain %s", flag)
		}
	}
}

func TestProbesCommand(t *testing.T) {
	code, out, _ := run(t, "probes")
	for _, id := range []string{"NODE-PODCIDR", "HNS-NETWORK", "DNS-CONFIG", "nodes/<node>/hns-networks.json", "cluster/nodes.json"} {
		if code != 0 || !strings.Contains(out, id) {
			t.Errorf("probes: exit %d, lacks %s:\n%s", code, id, out)
		}
	}
}

func TestDemoReport(t *testing.T) {
	code, out, errOut := run(t, "demo", "--report", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Summary map[string]int
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	nodes := 0 // every node of every scenario: the mixed ones' Linux workers too
	for _, n := range scenarios.Names() {
		_, meta, _, err := scenarios.Load(n)
		if err != nil {
			t.Fatal(err)
		}
		nodes += len(meta.Nodes)
	}
	if doc.Summary["nodes"] != nodes || doc.Summary["fail"] == 0 || doc.Summary["pass"] == 0 {
		t.Fatalf("summary %v", doc.Summary)
	}
}

// TestDemoReportMarkdown: the demo's own --help example. It used to panic (the Markdown
// excerpts read a nil evidence FS); now each failure shows an excerpt of its evidence.
func TestDemoReportMarkdown(t *testing.T) {
	code, out, errOut := run(t, "demo", "--report", "-o", "markdown", "--scenario", "routes-missing")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "| Node | Status |") || !strings.Contains(out, "NET-ROUTES") {
		t.Fatalf("not a markdown report of the routes-missing node:\n%s", out)
	}
	if !strings.Contains(out, "Evidence excerpt `nodes/routes-missing/") {
		t.Errorf("no evidence excerpt under the failures:\n%s", out)
	}
}

// TestRootValidatesFirst: bad flags are usage errors before anything connects, for the
// screen as for the report.
func TestRootValidatesFirst(t *testing.T) {
	for _, args := range [][]string{{"-o", "xml"}, {"--fail-on", "pass"}, {"--transport", "telnet"}, {"--report", "--transport", "telnet"}} {
		code, _, errOut := run(t, append(args, "--kubeconfig", filepath.Join(t.TempDir(), "none"))...)
		if code != 2 || strings.Contains(errOut, "cluster") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error before any connection", args, code, errOut)
		}
	}
}
