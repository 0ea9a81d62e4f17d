package main

import (
	"context"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// complete asks the program for shell completions, as the shell scripts cobra
// generates do, and returns the suggested values (descriptions cut off).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := run(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errOut)
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, ":") {
			break // the directive
		}
		v, _, _ := strings.Cut(l, "\t")
		if !strings.HasPrefix(v, "-") { // cobra offers required flags first
			vals = append(vals, v)
		}
	}
	return vals
}

func TestCompletion(t *testing.T) {
	var ids []string
	for _, p := range probes.Default().Probes() {
		ids = append(ids, p.ID())
	}
	if got := complete(t, "fix", ""); strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Errorf("fix PROBE completes %v, want the registry's %v", got, ids)
	}
	var formats []string
	for _, f := range report.Formats() {
		formats = append(formats, string(f))
	}
	for _, args := range [][]string{{"-o", ""}, {"analyze", "x", "--output", ""}, {"demo", "-o", ""}} {
		if got := complete(t, args...); strings.Join(got, " ") != strings.Join(formats, " ") {
			t.Errorf("%v completes %v, want the format registry's %v", args, got, formats)
		}
	}
	dir := scenarioDir(t, "routes-missing")
	if got := complete(t, "analyze", dir, "--node", ""); strings.Join(got, " ") != "win-1" {
		t.Errorf("analyze DIR --node completes %v, want the evidence's win-1", got)
	}
	if got := complete(t, "demo", "--scenario", "routes"); !strings.Contains(strings.Join(got, " "), "routes-missing") {
		t.Errorf("demo --scenario completes %v", got)
	}
}

func TestHelpAndFlagMarks(t *testing.T) {
	_, help, _ := run(t, "--help")
	if strings.Contains(help, "fakenode") {
		t.Error("--help lists the hidden fakenode command")
	}
	for _, want := range []string{"--node-user", "--verbose", "--user string"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %s", want)
		}
	}
	if strings.Contains(help, "-v, --verbose") {
		t.Error("-v is kubectl's log level; --verbose must not take it")
	}
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"fix", "NET-ROUTES"}, `required flag(s) "node" not set`},
		{[]string{"fakenode"}, `required flag(s) "scenario" not set`},
		{[]string{"snapshot", "x.tar.gz", "--no-redact", "--redact-rules", "r.yaml"}, "none of the others can be"},
		{[]string{"--report", "--password-file", "f", "--password-prompt"}, "none of the others can be"},
		{[]string{"snapshot"}, "wintroubleshoot snapshot FILE.tar.gz"},
		{[]string{"snapshot", "-o", "x.tar.gz"}, "unknown shorthand flag: 'o'"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != report.ExitUsage || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying %q", c.args, code, errOut, c.says)
		}
	}
}

// TestKubectlPlugin: started as kubectl-wintroubleshoot, help says how kubectl users
// type it, and file names that merely start with the name are left alone.
func TestKubectlPlugin(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/kubectl-wintroubleshoot":  "kubectl wintroubleshoot",
		`C:\krew\bin\kubectl-wintroubleshoot.exe`: "kubectl wintroubleshoot",
		"./wintroubleshoot":                       "wintroubleshoot",
	} {
		if got := displayName(strings.ReplaceAll(argv0, `\`, "/")); got != want {
			t.Errorf("displayName(%s) = %q, want %q", argv0, got, want)
		}
	}
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	if code := RunAs(context.Background(), streams, "kubectl-wintroubleshoot", []string{"snapshot", "--help"}); code != 0 {
		t.Fatalf("help exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"kubectl wintroubleshoot snapshot FILE.tar.gz [flags]", "WTS_PASSWORD=... kubectl wintroubleshoot snapshot case-1234.tar.gz", "'kubectl wintroubleshoot analyze FILE'"} {
		if !strings.Contains(help, want) {
			t.Errorf("plugin help lacks %q:\n%s", want, help)
		}
	}
	if got := rename("wintroubleshoot-snapshot-1.tar.gz and wintroubleshoot.exe, wintroubleshoot wintroubleshoot", "kubectl wintroubleshoot"); got != "wintroubleshoot-snapshot-1.tar.gz and wintroubleshoot.exe, kubectl wintroubleshoot kubectl wintroubleshoot" {
		t.Errorf("rename: %q", got)
	}
}

// TestProbesListsTheEvidenceContract: `probes --evidence`, which skips and errors point
// to, names every evidence file with its command, so a customer can be asked for it.
func TestProbesListsTheEvidenceContract(t *testing.T) {
	code, out, errOut := run(t, "probes", "--evidence")
	if code != 0 {
		t.Fatalf("probes --evidence: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"nodes/<node>/services.json\n  command: `Get-CimInstance Win32_Service", "cluster/nodes.json\n  command: `kubectl get nodes -o json`"} {
		if !strings.Contains(out, want) {
			t.Errorf("probes --evidence lacks %q", want)
		}
	}
	if n := strings.Count(out, "\n  command: "); n < 40 {
		t.Errorf("probes --evidence lists %d files, want every key", n)
	}
}
