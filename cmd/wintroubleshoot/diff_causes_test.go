package main

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/bundle"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestDiffRootCausesFirst: diff says which root causes appeared and cleared before the
// finding-by-finding lines; a consequence that cleared with its cause is not a root cause
// of its own.
func TestDiffRootCausesFirst(t *testing.T) {
	f := func(probe string, s probes.Status, summary string) probes.Finding {
		return probes.Finding{Node: "win-1", Probe: probe, Status: s, Summary: summary}
	}
	before := writeCase(t, []probes.Finding{f("NODE-PODCIDR", probes.Fail, "node spec.podCIDR is empty"),
		f("HNS-NETWORK", probes.Fail, "waiting for the network l2bridge"), f("DNS-CONFIG", probes.Pass, "ok")}, nil, bundle.Options{})
	after := writeCase(t, []probes.Finding{f("NODE-PODCIDR", probes.Pass, "podCIDR 10.200.2.0/24"),
		f("HNS-NETWORK", probes.Pass, "l2bridge matches"), f("DNS-CONFIG", probes.Fail, "CNI DNS 11.0.0.10")}, nil, bundle.Options{})
	code, out, stderr := runBundleCmd(t, "diff", before, after)
	if code != report.ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"root causes: 1 appeared, 1 cleared", "+ ✗ DNS-CONFIG on win-1: CNI DNS 11.0.0.10",
		"- ✗ NODE-PODCIDR on win-1: node spec.podCIDR is empty"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "- ✗ HNS-NETWORK") {
		t.Errorf("a consequence is listed as a cleared root cause:\n%s", out)
	}
	if strings.Index(out, "root causes:") > strings.Index(out, "findings:") {
		t.Errorf("root causes are not first:\n%s", out)
	}
}
