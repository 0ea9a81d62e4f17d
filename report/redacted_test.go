package report

import (
	"bytes"
	"encoding/json"
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
