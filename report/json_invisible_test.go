package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestJSONEscapesInvisible: C1 controls (the one-byte CSI U+009B) and bidi overrides in
// a finding are written as \u escapes in JSON, as the text output escapes them, and read
// back as they were. Before, encoding/json wrote them raw.
func TestJSONEscapesInvisible(t *testing.T) {
	summary := "kubelet \u009b31mred \u0085next \u202eevil\u202c \u2066iso\u2069 café"
	f := []probes.Finding{{Probe: "X", Node: "w", Status: probes.Fail, Summary: summary}}
	var buf bytes.Buffer
	if err := Write(&buf, JSON, Meta{Tool: "wintroubleshoot"}, f, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, r := range []string{"\u009b", "\u0085", "\u202e", "\u202c", "\u2066", "\u2069"} {
		if strings.Contains(out, r) {
			t.Errorf("%U is written raw:\n%s", []rune(r)[0], out)
		}
	}
	if !strings.Contains(out, `\u009b31mred`) || !strings.Contains(out, "café") {
		t.Errorf("not escaped as \\u, or other text changed:\n%s", out)
	}
	_, back, err := Read(strings.NewReader(out))
	if err != nil || len(back) != 1 || back[0].Summary != summary {
		t.Fatalf("read back %v %v", back, err)
	}
}
