package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/leakmatrix"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// matrixPerRule is how many of each gitleaks rule function's samples the outputs are
// tested with: every rule and every notation of gitleaks' generator still occur.
const matrixPerRule = 1

// TestLeakMatrixReports is the corpus matrix through the report formats: every sample
// of gitleaks' rules and our own kinds, planted into every evidence format, read back
// through a folder and a bundle entry (intake redacts), quoted by findings as probes
// quote evidence, and written in every format as the commands write it (WriteRedacted):
// no secret in any form the format writes text in, and JSON and JUnit still parse.
func TestLeakMatrixReports(t *testing.T) {
	planted, stats, err := leakmatrix.Load(context.Background(), t.TempDir(), matrixPerRule)
	if err != nil {
		t.Fatal(err)
	}
	red := redact.Default()
	// One report per format and route, as one run's report holds one node's evidence.
	for _, group := range leakmatrix.Groups(planted) {
		findings, excerpts := leakmatrix.Findings(group)
		for _, f := range Formats() {
			var buf bytes.Buffer
			if err := WriteRedacted(&buf, f, Meta{Tool: "wintroubleshoot", Source: "matrix"}, findings, Options{Verbose: true, Excerpts: excerpts}, red); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			text, err := decodeOutput(f, buf.Bytes())
			if err != nil {
				t.Errorf("%s of %s/%s: the output does not parse: %v", f, group[0].Format, group[0].Route, err)
			}
			if leaks := leakmatrix.Leaks(text, group); len(leaks) > 0 {
				t.Errorf("%s: %d secrets came out, e.g. %s", f, len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
			}
		}
	}
	t.Logf("matrix: %v; outputs %d (%v)", stats, len(Formats()), Formats())
}

// decodeOutput is the text a reader of the output sees: JSON's strings and XML's text
// and attributes decoded, text and Markdown as they are.
func decodeOutput(f Format, b []byte) (string, error) {
	switch f {
	case JSON:
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return string(b), err
		}
		var sb strings.Builder
		jsonStrings(&sb, v)
		return sb.String(), nil
	case JUnit:
		var sb strings.Builder
		d := xml.NewDecoder(bytes.NewReader(b))
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				return sb.String(), nil
			}
			if err != nil {
				return sb.String() + string(b), err
			}
			switch x := tok.(type) {
			case xml.CharData:
				sb.Write(x)
			case xml.StartElement:
				for _, a := range x.Attr {
					sb.WriteString(a.Value + "\n")
				}
			}
		}
	}
	return string(b), nil
}

func jsonStrings(sb *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		sb.WriteString(x + "\n")
	case []any:
		for _, e := range x {
			jsonStrings(sb, e)
		}
	case map[string]any:
		for k, e := range x {
			sb.WriteString(k + "\n")
			jsonStrings(sb, e)
		}
	default:
		fmt.Fprintln(sb, x)
	}
}
