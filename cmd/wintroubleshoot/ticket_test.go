package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDemoMarkdownFitsATicket: the whole demo fleet's Markdown report fits what a GitHub
// issue accepts (65,536 characters, the --max-size default), and every failing finding
// still has its evidence and its fix in it.
func TestDemoMarkdownFitsATicket(t *testing.T) {
	code, md, errOut := run(t, "demo", "--report", "-o", "markdown")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := utf8.RuneCountInString(md); n > 65536 {
		t.Fatalf("demo Markdown is %d characters, over 65,536", n)
	}
	t.Logf("demo fleet Markdown: %d bytes, %d characters", len(md), utf8.RuneCountInString(md))
	code, js, errOut := run(t, "demo", "--report", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Findings []struct {
			Probe, Node, Status, Summary string
			Evidence                     []string
			Fix                          *struct{ Title string }
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	failing := 0
	for _, f := range doc.Findings {
		if f.Status != "fail" && f.Status != "error" {
			continue
		}
		failing++
		// Alone ("PROBE on node") or folded with the same finding elsewhere ("PROBE on 3 nodes: a, node, b").
		grouped := regexp.MustCompile(regexp.QuoteMeta(f.Probe) + ` on \d+ nodes: [^\n]*\b` + regexp.QuoteMeta(f.Node) + `\b`)
		if !strings.Contains(md, f.Probe+" on "+f.Node) && !grouped.MatchString(md) {
			t.Errorf("%s on %s missing from the Markdown", f.Probe, f.Node)
		}
		for _, e := range f.Evidence {
			// Folded, the evidence is shown for the group's first node ("the same on the
			// other nodes, with their names").
			rest, inNode := strings.CutPrefix(e, "nodes/"+f.Node+"/")
			if inNode && grouped.MatchString(md) && regexp.MustCompile("`nodes/[^`/]+/"+regexp.QuoteMeta(rest)+"`").MatchString(md) {
				continue
			}
			if !strings.Contains(md, "`"+e+"`") {
				t.Errorf("%s on %s: evidence %s missing", f.Probe, f.Node, e)
			}
		}
		// Markdown escapes the title's underscores (KUBE\_NETWORK).
		if f.Fix != nil && !strings.Contains(md, f.Fix.Title) && !strings.Contains(md, strings.ReplaceAll(f.Fix.Title, "_", `\_`)) {
			t.Errorf("%s on %s: fix %q missing", f.Probe, f.Node, f.Fix.Title)
		}
	}
	if failing == 0 {
		t.Fatal("the demo fleet has no failing finding to check")
	}
	if !strings.Contains(md, "## Root causes") || strings.Index(md, "## Root causes") > strings.Index(md, "## Findings") {
		t.Error("root causes are not listed before the findings")
	}
	// Without a limit nothing is trimmed, and the report says nothing about trimming.
	_, full, _ := run(t, "demo", "--report", "-o", "markdown", "--max-size", "0")
	if len(full) <= len(md) || strings.Contains(full, "_Trimmed to fit") {
		t.Errorf("--max-size 0: %d bytes (trimmed: %d)", len(full), len(md))
	}
	if code, _, _ := run(t, "demo", "--report", "--max-size", "-1"); code != 2 {
		t.Errorf("--max-size -1: exit %d, want 2", code)
	}
}
