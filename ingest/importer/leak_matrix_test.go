package importer

import (
	"context"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/leakmatrix"
)

// TestLeakMatrixImport is the corpus matrix (fixtures/leakmatrix) through import: every
// format's planted text pasted raw (a ticket holds what a person copied, never redacted),
// one paste per format: neither import.json nor any evidence file it writes holds a
// secret.
func TestLeakMatrixImport(t *testing.T) {
	planted, stats, err := leakmatrix.Load(context.Background(), t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	pastes := 0
	for _, group := range leakmatrix.Groups(planted) {
		if group[0].Route != "folder" || strings.HasPrefix(group[0].Format, "utf-16") {
			continue // a paste is text, and the route does not change what was pasted
		}
		var in []Input
		for i, p := range group {
			in = append(in, Input{Name: group[0].Format + "-" + string(rune('a'+i%26)) + ".txt", Data: p.Raw})
		}
		res, err := Import(in, Options{Node: "win-a"})
		if err != nil {
			t.Fatalf("%s: %v", group[0].Format, err)
		}
		rep, err := res.ReportJSON()
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		all.Write(rep)
		for _, b := range res.Files {
			all.Write(b)
		}
		if leaks := leakmatrix.Leaks(all.String(), group); len(leaks) > 0 {
			t.Errorf("import of %s: %d secrets came out, e.g. %s", group[0].Format, len(leaks), strings.Join(leaks[:min(5, len(leaks))], "; "))
		}
		pastes += len(in)
	}
	t.Logf("matrix: %v; outputs: import.json and the evidence files (%d pastes)", stats, pastes)
}
