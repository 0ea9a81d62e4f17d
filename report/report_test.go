package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func withStatuses(statuses ...probes.Status) []probes.Finding {
	out := make([]probes.Finding, len(statuses))
	for i, s := range statuses {
		out[i] = probes.Finding{Probe: "P", Node: "n", Status: s}
	}
	return out
}

func TestExitCode(t *testing.T) {
	const (
		pass, skip, warn, fail, errS = probes.Pass, probes.Skip, probes.Warn, probes.Fail, probes.Error
	)
	cases := []struct {
		name     string
		findings []probes.Finding
		failOn   probes.Status
		want     int
	}{
		{"all pass", withStatuses(pass, pass), DefaultFailOn, ExitOK},
		{"warn below default", withStatuses(pass, warn), DefaultFailOn, ExitOK},
		{"skip only is judged", withStatuses(skip), DefaultFailOn, ExitOK},
		{"fail", withStatuses(pass, fail), DefaultFailOn, ExitFindings},
		{"error among judged ranks above fail", withStatuses(pass, errS), DefaultFailOn, ExitFindings},
		{"fail-on warn, warn", withStatuses(pass, warn), probes.Warn, ExitFindings},
		{"fail-on warn, pass", withStatuses(pass, skip), probes.Warn, ExitOK},
		{"fail-on error, fail", withStatuses(fail), probes.Error, ExitOK},
		{"fail-on error, error", withStatuses(pass, errS), probes.Error, ExitFindings},
		{"fail-on pass, anything", withStatuses(pass), probes.Pass, ExitFindings},
		{"no findings", nil, DefaultFailOn, ExitNothingJudged},
		{"empty slice", []probes.Finding{}, probes.Warn, ExitNothingJudged},
		{"only errors", withStatuses(errS, errS), DefaultFailOn, ExitNothingJudged},
		{"only errors, fail-on error", withStatuses(errS), probes.Error, ExitNothingJudged},
	}
	for _, c := range cases {
		if got := ExitCode(c.findings, c.failOn); got != c.want {
			t.Errorf("%s: ExitCode = %d, want %d", c.name, got, c.want)
		}
	}
	if ExitUsage != 2 {
		t.Errorf("ExitUsage = %d, the README says 2", ExitUsage)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"text": Text, "Markdown": Markdown, "md": Markdown, " json ": JSON, "JUNIT": JUnit,
	} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "xml", "html"} {
		if _, err := ParseFormat(bad); err == nil {
			t.Errorf("ParseFormat(%q): want an error", bad)
		}
	}
}

func TestSortOrder(t *testing.T) {
	got := sortKeys(Sort(sampleFindings()))
	want := []string{
		"(cluster-wide) warn WINDOWS-DAEMONSETS",
		"win-1 fail HNS-NETWORK",
		"win-1 skip CALICO-FELIX",
		"win-1 pass KUBELET-SERVICE",
		"win-2 fail NODE-PODCIDR",
		"win-2 warn HNS-STALE-ENDPOINTS",
		"win-2 pass KUBELET-SERVICE",
		"win-2 pass OS-BUILD",
		"win-3 error COLLECT",
	}
	if !slices.Equal(got, want) {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
}

// TestSortStable: two findings of one probe on one node keep the probe's order.
func TestSortStable(t *testing.T) {
	in := []probes.Finding{
		{Probe: "P", Node: "n", Status: probes.Fail, Summary: "first"},
		{Probe: "P", Node: "n", Status: probes.Fail, Summary: "second"},
	}
	out := Sort(in)
	if out[0].Summary != "first" || out[1].Summary != "second" {
		t.Errorf("tie order changed: %v", out)
	}
}

func TestCounts(t *testing.T) {
	c := Counts(sampleFindings())
	want := map[probes.Status]int{probes.Pass: 3, probes.Skip: 1, probes.Warn: 2, probes.Fail: 2, probes.Error: 1}
	for s, n := range want {
		if c[s] != n {
			t.Errorf("Counts[%s] = %d, want %d", s, c[s], n)
		}
	}
	if len(Counts(nil)) != 0 {
		t.Error("Counts(nil) should be empty")
	}
}

func TestNodeSummary(t *testing.T) {
	rows := NodeSummary(sampleFindings())
	type row struct {
		node             string
		worst            probes.Status
		fail, warn, pass int
	}
	want := []row{
		{"", probes.Warn, 0, 1, 0},
		{"win-1", probes.Fail, 1, 0, 1},
		{"win-2", probes.Fail, 1, 1, 2},
		{"win-3", probes.Error, 0, 0, 0},
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		got := row{r.Node, r.Worst, r.Counts[probes.Fail], r.Counts[probes.Warn], r.Counts[probes.Pass]}
		if got != w {
			t.Errorf("row %d = %+v, want %+v", i, got, w)
		}
	}
	if NodeSummary(nil) != nil {
		t.Error("NodeSummary(nil) should be nil")
	}
}

func TestNodeLabel(t *testing.T) {
	if NodeLabel("") != "(cluster-wide)" || NodeLabel("win-1") != "win-1" {
		t.Error("NodeLabel")
	}
}

func TestSummaryLine(t *testing.T) {
	if got, want := summaryLine(sampleFindings()), "3 nodes, 2 fail, 2 warn, 1 error, 3 pass, 1 skip"; got != want {
		t.Errorf("summaryLine = %q, want %q", got, want)
	}
	if got, want := summaryLine(withStatuses(probes.Pass)), "1 node, 0 fail, 0 warn, 0 error, 1 pass"; got != want {
		t.Errorf("summaryLine = %q, want %q", got, want)
	}
}

// TestNodeHeadingsShowKinds: with NodeOS set (a mixed run), the text headings and the
// Markdown summary name each node's kind; without it they name nodes alone.
func TestNodeHeadingsShowKinds(t *testing.T) {
	fs := []probes.Finding{
		{Probe: "LINUX-SWAP", Node: "node-1", Status: probes.Fail, Summary: "swap is on"},
		{Probe: "HOST-UPTIME", Node: "win-1", Status: probes.Pass, Summary: "ok"},
	}
	kinds := map[string]string{"node-1": "linux", "win-1": "windows"}
	for _, c := range []struct {
		format Format
		want   []string
	}{
		{Text, []string{"node-1 (linux)", "win-1 (windows)"}},
		{Markdown, []string{"| node-1 (linux) |", "| win-1 (windows) |"}},
	} {
		var with, without bytes.Buffer
		if err := Write(&with, c.format, Meta{}, fs, Options{NodeOS: kinds}); err != nil {
			t.Fatal(err)
		}
		if err := Write(&without, c.format, Meta{}, fs, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(with.String(), w) {
				t.Errorf("%s lacks %q:\n%s", c.format, w, with.String())
			}
		}
		if strings.Contains(without.String(), "(linux)") || strings.Contains(without.String(), "(windows)") {
			t.Errorf("%s without NodeOS names kinds:\n%s", c.format, without.String())
		}
	}
}
