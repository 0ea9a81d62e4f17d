package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// TestWriteRedactedEveryFormat: a password quoted in a detail and credentials in the
// cluster address leave no format, and the JSON report stays valid JSON (redacted by
// value, not by regex over its text).
func TestWriteRedactedEveryFormat(t *testing.T) {
	meta := Meta{Tool: "wintroubleshoot", Cluster: "https://admin:HdrPw-5512@10.0.0.1:6443"}
	fs := []probes.Finding{{Probe: "SVC-KUBELET", Node: "win-1", Status: probes.Fail, Summary: "kubelet stopped",
		Details: []string{`x.exe -Password "DetailPw-991"`, "login --password=FlagPw-3318"}}}
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := WriteRedacted(&buf, f, meta, fs, Options{}, redact.Default()); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"HdrPw-5512", "DetailPw-991", "FlagPw-3318"} {
			if strings.Contains(buf.String(), s) {
				t.Errorf("-o %s holds %q:\n%s", f, s, buf.String())
			}
		}
		if !strings.Contains(buf.String(), "SVC-KUBELET") {
			t.Errorf("-o %s lost the finding:\n%s", f, buf.String())
		}
		if f == JSON && !json.Valid(buf.Bytes()) {
			t.Errorf("the redacted JSON report is not JSON:\n%s", buf.String())
		}
	}
}

// TestWriteRedactedBeforeEscaping: secrets whose context a format escapes (Markdown's
// \_, JUnit's &amp;) leave no format: they are redacted before the format escapes
// them. Before, the Markdown report and the JUnit file leaked all three (the redactor
// ran over the escaped text), and the JUnit file stays well-formed XML.
func TestWriteRedactedBeforeEscaping(t *testing.T) {
	secrets := []string{"SeedUnderscore-41", "SeedSasSig42", "ghp_0123456789abcdefghijABCDEFGHIJ012345"}
	meta := Meta{Tool: "wintroubleshoot", Cluster: "https://10.0.0.1:6443"}
	fs := []probes.Finding{{Probe: "NODE-ENV", Node: "win-1", Status: probes.Fail, Summary: "environment holds SECRET_KEY=SeedUnderscore-41",
		Details: []string{"blob https://acct.blob.core.windows.net/c?sv=2021-08-06&sig=SeedSasSig42&se=2030-01-01",
			"GITHUB_PAT is ghp_0123456789abcdefghijABCDEFGHIJ012345 here"},
		Evidence: []string{"nodes/win-1/env.txt"}}}
	opt := Options{Excerpts: map[string]string{"nodes/win-1/env.txt": "SECRET_KEY=SeedUnderscore-41\n"}}
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := WriteRedacted(&buf, f, meta, fs, opt, redact.Default()); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, s := range secrets {
			for _, form := range []string{s, strings.ReplaceAll(s, "_", `\_`), strings.ReplaceAll(s, "-", `\-`)} {
				if strings.Contains(out, form) {
					t.Errorf("-o %s holds %q:\n%s", f, form, out)
				}
			}
		}
		if f == JUnit {
			for d := xml.NewDecoder(&buf); ; {
				if _, err := d.Token(); err != nil {
					if err != io.EOF {
						t.Errorf("the redacted JUnit file is not XML: %v\n%s", err, out)
					}
					break
				}
			}
		}
	}
	if fs[0].Summary != "environment holds SECRET_KEY=SeedUnderscore-41" || opt.Excerpts["nodes/win-1/env.txt"] == "" {
		t.Error("the caller's findings or excerpts were changed")
	}
}
