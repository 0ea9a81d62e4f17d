package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/golden"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

// TestRealImportGoldens imports every real sample and compares the evidence files and
// the report with their goldens; for each list view it checks that every property the
// console printed is in the JSON or in the report's missing fields.
func TestRealImportGoldens(t *testing.T) {
	for _, name := range realNames(t) {
		in := realSample(t, name)
		importGolden(t, in, filepath.Join("testdata", "golden", strings.TrimSuffix(name, filepath.Ext(name))+".json"))
	}
}

// importGolden imports one paste and compares the evidence files and the report with
// the golden at path (go test -update rewrites it).
func importGolden(t *testing.T, in importer.Input, p string) importer.Result {
	t.Helper()
	res, err := importer.Import([]importer.Input{in}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]any{}
	for fp, b := range res.Files {
		var v any
		if json.Unmarshal(b, &v) == nil {
			files[fp] = v
		} else {
			files[fp] = strings.Split(string(b), "\n")
		}
	}
	checkNoLoss(t, in.Name, in, res)
	golden.AssertJSON(t, p, map[string]any{"report": res.Report, "files": files})
	return res
}

func realNames(t *testing.T) []string {
	t.Helper()
	for _, d := range []string{os.Getenv("WTS_REAL_OUTPUTS"), "../../../shared/real-outputs", "../../../../shared/real-outputs"} {
		if d == "" {
			continue
		}
		if es, err := os.ReadDir(d); err == nil {
			var out []string
			for _, e := range es {
				if e.Name() != "INDEX.md" {
					out = append(out, e.Name())
				}
			}
			return out
		}
	}
	t.Skip("no real-outputs folder (set WTS_REAL_OUTPUTS)")
	return nil
}

// checkNoLoss: each printed property of each list-view record is in the written JSON,
// or the report says why not.
func checkNoLoss(t *testing.T, name string, in importer.Input, res importer.Result) {
	t.Helper()
	bi := 0
	pp := paste.New()
	for _, b := range pp.Split(string(in.Data)) {
		for _, p := range pp.Recognize(b) {
			rep := res.Report.Blocks[bi]
			bi++
			if len(p.List.Records) == 0 || rep.Evidence == "" {
				continue
			}
			var docs []map[string]any
			if err := json.Unmarshal(res.Files[rep.Evidence], &docs); err != nil {
				continue // not a list of records (merged services)
			}
			for i, r := range p.List.Records {
				for _, f := range r.Fields {
					if _, ok := docs[i][f.Name]; ok {
						continue
					}
					found := false
					for _, m := range rep.Missing {
						found = found || strings.HasPrefix(m.Field, f.Name)
					}
					if !found {
						t.Errorf("%s: record %d: %s was printed but is neither in %s nor reported missing", name, i+1, f.Name, rep.Evidence)
					}
				}
			}
		}
	}
}
