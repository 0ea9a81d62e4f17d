package report

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func render(t *testing.T, f Format, meta Meta, findings []probes.Finding, opt Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f, meta, findings, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestJSONRoundTrip(t *testing.T) {
	meta := sampleMeta
	meta.Time = time.Date(2025, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
	out := render(t, JSON, meta, sampleFindings(), Options{})

	gotMeta, got, err := Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if !gotMeta.Time.Equal(meta.Time) {
		t.Errorf("time = %v, want %v", gotMeta.Time, meta.Time)
	}
	gotMeta.Time, meta.Time = time.Time{}, time.Time{}
	if gotMeta != meta {
		t.Errorf("meta = %+v, want %+v", gotMeta, meta)
	}
	if want := Sort(sampleFindings()); !reflect.DeepEqual(got, want) {
		t.Errorf("findings differ after round trip:\n got %+v\nwant %+v", got, want)
	}
	// Rendering what was read must give the same bytes: analyze of a bundle reproduces it.
	if again := render(t, JSON, sampleMeta, got, Options{}); again != render(t, JSON, sampleMeta, sampleFindings(), Options{}) {
		t.Error("re-rendered JSON differs")
	}
}

func TestJSONTimeOmittedWhenZero(t *testing.T) {
	if out := render(t, JSON, sampleMeta, nil, Options{}); strings.Contains(out, `"time"`) {
		t.Errorf("zero time should be omitted:\n%s", out)
	}
	meta := Meta{Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if out := render(t, JSON, meta, nil, Options{}); !strings.Contains(out, `"time": "2025-01-02T03:04:05Z"`) {
		t.Errorf("time missing:\n%s", out)
	}
}

func TestReadRejects(t *testing.T) {
	cases := map[string]string{
		"future version":   `{"schemaVersion":3,"findings":[]}`,
		"no version":       `{"findings":[]}`,
		"not json":         `✗ win-1 (1 fail)`,
		"unknown status":   `{"schemaVersion":1,"findings":[{"probe":"P","node":"n","status":"fatal"}]}`,
		"trailing garbage": `{"schemaVersion":1,"findings":[]} {}`,
	}
	for name, in := range cases {
		if _, _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("%s: want an error", name)
		} else if name == "future version" && !strings.Contains(err.Error(), "schemaVersion 3 is not supported") {
			t.Errorf("%s: unclear error %q", name, err)
		}
	}
	// Unknown fields are additive changes within a version: accepted.
	_, got, err := Read(strings.NewReader(`{"schemaVersion":1,"newField":true,"findings":[{"probe":"P","node":"n","status":"warn","extra":1}]}`))
	if err != nil || len(got) != 1 || got[0].Status != probes.Warn {
		t.Errorf("unknown fields: %v, %+v", err, got)
	}
}

// hostile is text a broken or hostile node might print: terminal escapes, NUL, invalid
// UTF-8, XML non-characters, markup.
const hostile = "net\x1b[31mred\x1b[0m \x00nul \xff\xfe bad \uFFFE \u202eevil ]]> <b>&amp; `tick` | pipe\r\n"

func hostileFindings() []probes.Finding {
	return []probes.Finding{
		{Probe: "HNS-NETWORK", Node: "win-1", Status: probes.Fail, Summary: hostile, Details: []string{hostile},
			Evidence: []string{"nodes/win-1/hns-networks.json"},
			Fix:      &probes.Fix{Title: hostile, Kind: probes.NodeScript, Commands: []string{hostile}, Notes: []string{hostile}}},
		{Probe: "COLLECT", Node: "win-1", Status: probes.Error, Summary: hostile},
		{Probe: "HNS-NETWORK", Node: "win-1", Status: probes.Fail, Summary: "second finding of one probe"},
		{Probe: "OS-BUILD", Node: "win-3\x01", Status: probes.Warn, Summary: hostile},
		{Probe: "CALICO", Node: "win-2", Status: probes.Skip, Summary: hostile},
		{Probe: "KUBELET", Node: "", Status: probes.Pass, Summary: "ok"},
	}
}

func TestJUnitParsesBack(t *testing.T) {
	for name, findings := range map[string][]probes.Finding{
		"sample": sampleFindings(), "hostile": hostileFindings(),
	} {
		out := render(t, JUnit, sampleMeta, findings, Options{})
		var doc junitSuites
		if err := xml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: junit does not parse: %v\n%s", name, err, out)
		}
		c := Counts(findings)
		if doc.Tests != len(findings) || doc.Failures != c[probes.Fail] || doc.Errors != c[probes.Error] || doc.Skipped != c[probes.Skip] {
			t.Errorf("%s: totals tests=%d failures=%d errors=%d skipped=%d, counts %v", name,
				doc.Tests, doc.Failures, doc.Errors, doc.Skipped, c)
		}
		if len(doc.Suites) != len(NodeSummary(findings)) {
			t.Errorf("%s: %d suites, want one per node", name, len(doc.Suites))
		}
	}

	var doc junitSuites
	_ = xml.Unmarshal([]byte(render(t, JUnit, Meta{}, hostileFindings(), Options{})), &doc)
	win1 := doc.Suites[1]
	if win1.Name != "win-1" || win1.Cases[0].Classname != "wintroubleshoot.win-1" {
		t.Errorf("suite/classname: %+v", win1)
	}
	names := []string{win1.Cases[0].Name, win1.Cases[1].Name, win1.Cases[2].Name}
	if want := []string{"COLLECT", "HNS-NETWORK", "HNS-NETWORK #2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("case names %q, want %q (duplicates disambiguated)", names, want)
	}
	if win1.Cases[0].Error == nil || win1.Cases[1].Failure == nil {
		t.Error("error/failure elements missing")
	}
	warn := doc.Suites[3].Cases[0]
	if doc.Suites[3].Name != `win-3\x01` {
		t.Errorf("control character in a node name should show escaped, got %q", doc.Suites[3].Name)
	}
	if warn.Failure != nil || warn.Error != nil || warn.SystemOut == nil || !strings.HasPrefix(warn.SystemOut.Body, "warn: ") {
		t.Errorf("warn should pass with system-out: %+v", warn)
	}
}

func TestTextColor(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		plain := render(t, Text, sampleMeta, append(sampleFindings(), hostileFindings()...), Options{Verbose: verbose})
		if strings.ContainsRune(plain, 0x1b) {
			t.Errorf("Color false (verbose %v) produced an ESC byte", verbose)
		}
		if strings.ContainsAny(plain, "\x00\r\u202e") {
			t.Errorf("control characters leaked into text output")
		}
	}
	if !strings.Contains(render(t, Text, sampleMeta, sampleFindings(), Options{Color: true}), "\x1b[") {
		t.Error("Color true produced no ANSI codes")
	}
	if !strings.Contains(render(t, Text, Meta{}, hostileFindings(), Options{}), `net\x1b[31mred`) {
		t.Error("an ESC from a node should show as a visible escape")
	}
}

func TestMarkdownFenceEscaping(t *testing.T) {
	excerpt := "before\n```\nnot the end\n````powershell\nstill inside\n"
	findings := []probes.Finding{{Probe: "P", Node: "n", Status: probes.Fail, Summary: "s",
		Evidence: []string{"nodes/n/a`b.json"},
		Fix:      &probes.Fix{Title: "t", Kind: probes.KubeAPI, Commands: []string{"echo ```` hi"}}}}
	out := render(t, Markdown, Meta{}, findings, Options{Excerpts: map[string]string{"nodes/n/a`b.json": excerpt}})

	if !strings.Contains(out, "`````json\nbefore\n```\nnot the end\n````powershell\nstill inside\n`````\n") {
		t.Errorf("excerpt not fenced with 5 backticks:\n%s", out)
	}
	if !strings.Contains(out, "`````sh\necho ```` hi\n`````\n") {
		t.Errorf("command not fenced with 5 backticks:\n%s", out)
	}
	if !strings.Contains(out, "``nodes/n/a`b.json``") {
		t.Errorf("evidence path with a backtick not in a double-backtick span:\n%s", out)
	}
}

func TestMarkdownExcerptTruncated(t *testing.T) {
	out := render(t, Markdown, sampleMeta, sampleFindings(), Options{Excerpts: sampleExcerpts()})
	// The log's 55 lines: only those naming what the finding compared (48s) are shown,
	// repeats counted, and the excerpt says what it left out.
	if !strings.Contains(out, "of 55 lines: the ones naming what the finding compared") {
		t.Errorf("missing selection note:\n%s", out)
	}
	if strings.Count(out, "syncProxyRules took") >= 55 || !strings.Contains(out, "syncProxyRules took 48s") {
		t.Errorf("excerpt not cut to the matching lines:\n%s", out)
	}
	body, cut := truncateExcerpt(strings.Repeat("é", ExcerptMaxBytes)) // 2 bytes each
	if len(body) > ExcerptMaxBytes || !strings.HasSuffix(body, "é") || !strings.Contains(cut, "bytes") {
		t.Errorf("byte truncation: len %d, cut %q", len(body), cut)
	}
}

func TestMarkdownEscaping(t *testing.T) {
	if got := mdCell("a|b"); got != `a\|b` {
		t.Errorf("mdCell = %q", got)
	}
	out := render(t, Markdown, Meta{}, hostileFindings(), Options{})
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("escapes leaked:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		// Outside code blocks, markup from a node must render as text.
		if (strings.HasPrefix(line, "###") || strings.HasPrefix(line, "- ")) && strings.Contains(line, "<b>") {
			t.Errorf("HTML leaked into %q", line)
		}
	}
	if got := mdInline(`C:\k\*.log # x #`); got != `C:\\k\\\*.log # x \#` {
		t.Errorf("mdInline = %q", got)
	}
	if got := mdInline("- not a list"); got != `\- not a list` {
		t.Errorf("mdInline = %q", got)
	}
}
