package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

// TestShapeImportGoldens imports each of the project's own console samples (this
// package's testdata/shapes and the list views of evidence/paste/testdata/shapes) and
// compares the evidence files and the report with testdata/shapes/golden: the goldens a
// fresh clone checks, where TestRealImportGoldens needs the reference outputs kept
// outside the repository.
func TestShapeImportGoldens(t *testing.T) {
	var names []string
	for _, glob := range []string{"testdata/shapes/*.*", "../../evidence/paste/testdata/shapes/*.txt"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range m {
			if !strings.HasSuffix(n, ".md") {
				names = append(names, n)
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("found %d shape samples, want at least 10", len(names))
	}
	for _, n := range names {
		t.Run(filepath.Base(n), func(t *testing.T) {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Base(n)
			res := importGolden(t, importer.Input{Name: base, Data: b},
				filepath.Join("testdata", "shapes", "golden", strings.TrimSuffix(base, filepath.Ext(base))+".json"))
			if len(res.Files) == 0 {
				t.Errorf("%s: nothing imported", base)
			}
		})
	}
}
