package engine

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// AnalyzeImported judges evidence an import read from pasted console text: `analyze DIR`
// on a folder of pastes (imported in memory) or on one `import --out` wrote, and
// `import --analyze`, all through here, so they give the same findings and the same
// "re-collect with ..." hints. rep is the import's report (nil: the evidence is not an
// import's, and this is AnalyzeContext). It stops between nodes once ctx is done.
func AnalyzeImported(ctx context.Context, reg *probes.Registry, ev evidence.Evidence, rep *importer.Report, nodes []string) ([]probes.Finding, error) {
	findings, err := Analyze(ctx, reg, ev, nodes)
	if err != nil || rep == nil {
		return findings, err
	}
	ExplainImport(reg, findings, *rep, ev.FS)
	return findings, nil
}

// ExplainImport tells, on each skip, which evidence the paste did not hold (or held only
// in part: the fields import.json lists as missing) and the exact command that collects
// it.
func ExplainImport(reg *probes.Registry, findings []probes.Finding, rep importer.Report, fsys fs.FS) {
	partial := map[string]importer.BlockReport{}
	for _, b := range rep.Blocks {
		if b.Evidence != "" && len(b.Missing) > 0 {
			partial[b.Evidence] = b
		}
	}
	for i, f := range findings {
		p, ok := reg.Get(f.Probe)
		if f.Status != probes.Skip || !ok {
			continue
		}
		for _, k := range p.Spec().Reads {
			path := k.Path(f.Node)
			if b, ok := partial[path]; ok {
				var fields []string
				for _, m := range b.Missing {
					if !slices.Contains(fields, m.Field) {
						fields = append(fields, m.Field)
					}
				}
				findings[i].Details = append(findings[i].Details, fmt.Sprintf("%s: %s not in the pasted output: re-collect with %s",
					path, strings.Join(fields, ", "), b.Recollect))
			} else if _, err := fs.Stat(fsys, path); err != nil {
				findings[i].Details = append(findings[i].Details, fmt.Sprintf("%s: not in the pasted output: re-collect with %s", path, k.Meta().Command))
			}
		}
	}
}
