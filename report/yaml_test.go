package report

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestYAMLIsTheJSONReport: the YAML report converts back to the JSON report's values
// (what `analyze` reads), and a hostile summary's bidi override and C1 control come out
// as visible escapes, as in the text report.
func TestYAMLIsTheJSONReport(t *testing.T) {
	fs := append(sampleFindings(), probes.Finding{Probe: "HOST-NAME", Node: "win-1", Status: probes.Warn,
		Summary: "name \u202egnp.exe\u202c and \u009b31m"})
	var y, j bytes.Buffer
	if err := Write(&y, YAML, sampleMeta, fs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&j, JSON, sampleMeta, fs, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(y.String(), "\u202e\u202c\u009b") {
		t.Errorf("the YAML report holds a raw bidi override or C1 control:\n%s", y.String())
	}
	if !strings.Contains(y.String(), `\u202e`) {
		t.Errorf("the bidi override is not shown as an escape:\n%s", y.String())
	}
	back, err := yaml.YAMLToJSON(y.Bytes())
	if err != nil {
		t.Fatalf("the YAML report does not parse: %v", err)
	}
	_, fromYAML, err := Read(bytes.NewReader(back))
	if err != nil {
		t.Fatalf("analyze cannot read the YAML report as JSON: %v", err)
	}
	_, fromJSON, err := Read(bytes.NewReader(j.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(fromYAML) != len(fromJSON) {
		t.Fatalf("YAML has %d findings, JSON %d", len(fromYAML), len(fromJSON))
	}
	for i := range fromJSON {
		a, b := fromYAML[i], fromJSON[i]
		if a.Ref() != b.Ref() || a.Status != b.Status || (a.Probe != "HOST-NAME" && a.Summary != b.Summary) {
			t.Errorf("finding %d: YAML %v %s %q, JSON %v %s %q", i, a.Ref(), a.Status, a.Summary, b.Ref(), b.Status, b.Summary)
		}
	}
}
