package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// TestBundleReportRedactedBeforeMarkdown: the report.md of a snapshot holds no secret
// whose context Markdown escapes. Before, it was written raw into the spool and the
// bundle's redaction ran over the Markdown, where SECRET_KEY= reads SECRET\_KEY=.
func TestBundleReportRedactedBeforeMarkdown(t *testing.T) {
	spool := t.TempDir()
	fs := []probes.Finding{{Probe: "NODE-ENV", Node: "win-1", Status: probes.Fail, Summary: "SECRET_KEY=SeedBundleKey-51 in the environment",
		Details: []string{"GITHUB_PAT=ghp_0123456789abcdefghijABCDEFGHIJ012345"}}}
	meta := report.Meta{Tool: "wintroubleshoot", Context: "DB_PASSWORD=SeedBundleCtx-52"}
	if err := writeReports(spool, meta, fs, nil, "", redact.Default()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{evidence.BundleReport, evidence.BundleFindings} {
		b, err := os.ReadFile(filepath.Join(spool, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"SeedBundleKey", "SeedBundleCtx", "0123456789abcdefghij"} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q:\n%s", name, s, b)
			}
		}
	}
}
