package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestAnalyzeRedactsEveryFormat: a --password= on a process's command line, which the
// Markdown report quotes in its processes.json excerpt, reaches no report format.
func TestAnalyzeRedactsEveryFormat(t *testing.T) {
	dir := scenarioDir(t, "kubelet-service-stopped")
	p := filepath.Join(dir, "nodes", "winpool-7k2pq", "processes.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const planted = "PlantedCmdPw-7731"
	b2 := strings.Replace(string(b), `--run-service"`, `--run-service --password=`+planted+`"`, 1)
	if b2 == string(b) {
		t.Fatal("the scenario changed: nothing planted")
	}
	os.WriteFile(p, []byte(b2), 0o600)
	for _, f := range report.Formats() {
		code, out, errOut := run(t, "analyze", dir, "-o", string(f))
		if code != 1 {
			t.Fatalf("-o %s: exit %d: %s", f, code, errOut)
		}
		if n := strings.Count(out+errOut, planted); n != 0 {
			t.Errorf("-o %s: the planted password appears %d times", f, n)
		}
		if f == report.Markdown && !strings.Contains(out, "Evidence excerpt `nodes/winpool-7k2pq/processes.json`") {
			t.Errorf("-o markdown: no processes.json excerpt, so nothing was tested:\n%.2000s", out)
		}
	}
}

// TestAnalyzeRefusesLinksOut: a folder whose host.json links out of it (to a
// kubeconfig, say) has that file refused, and its content is in no report.
func TestAnalyzeRefusesLinksOut(t *testing.T) {
	dir := linkedOutFolder(t)
	for _, f := range report.Formats() {
		_, out, errOut := run(t, "analyze", dir, "-o", string(f))
		if strings.Contains(out+errOut, "linked-out-secret-token") {
			t.Fatalf("-o %s: the linked file's content is in the report", f)
		}
		if !strings.Contains(out, "leads out of the evidence folder") {
			t.Errorf("-o %s: the refusal is not said:\n%.1500s", f, out)
		}
	}
}

// TestReportRedactsClusterAddress: credentials in the kubeconfig's server URL (and its
// token) reach neither the report header nor stderr, in any format.
func TestReportRedactsClusterAddress(t *testing.T) {
	noClusterHere(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(strings.Replace(testKubeconfig, "https://127.0.0.1:1", "https://admin:SrvPass-4419@127.0.0.1:1", 1)), 0o600)
	t.Setenv("WTS_PASSWORD", "node-pw-5521")
	for _, f := range report.Formats() {
		code, out, errOut := run(t, "--report", "-o", string(f), "--kubeconfig", kc, "--transport", "winrm", "--winrm-auth", "basic", "--winrm-allow-basic-over-http", "--node", "win-1=127.0.0.1:1")
		if code != report.ExitNothingJudged {
			t.Errorf("-o %s: exit %d, want 3 (no node reached): %s", f, code, errOut)
		}
		for _, secret := range []string{"SrvPass-4419", "kubeconfig-token-not-real", "node-pw-5521"} {
			if n := strings.Count(out+errOut, secret); n != 0 {
				t.Errorf("-o %s: %q appears %d times:\nstdout: %.1000s\nstderr: %s", f, secret, n, out, errOut)
			}
		}
		if !strings.Contains(out, "127.0.0.1") {
			t.Errorf("-o %s: the node is not in the report:\n%.1000s", f, out)
		}
	}
}
