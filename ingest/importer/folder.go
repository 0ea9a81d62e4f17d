package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// FS is the imported evidence as a folder in memory, as Write lays it out: the files,
// import.json, and the node's folder even when the paste held only cluster evidence (a
// node table, a describe), so the node is judged and its probes say what is missing.
func (r Result) FS() fs.FS {
	files := make(map[string][]byte, len(r.Files)+1)
	for p, b := range r.Files {
		files[p] = b
	}
	if b, err := r.ReportJSON(); err == nil {
		files[ReportFile] = b
	}
	var dirs []string
	if r.Report.Node != "" {
		dirs = append(dirs, evidence.NodeFile(r.Report.Node, ""))
	}
	return evidence.FilesFS(files, dirs...)
}

// ReadReport reads the import.json an import wrote into a folder; nil when there is
// none (the folder is not an import's).
func ReadReport(fsys fs.FS) (*Report, error) {
	b, err := fs.ReadFile(fsys, ReportFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ReportFile, err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s is not an import report: %w", ReportFile, err)
	}
	return &rep, nil
}
