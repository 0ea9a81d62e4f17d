package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Write stores the evidence and import.json in dir, which must not exist yet or be
// empty: an import never mixes with evidence already there.
func (r Result) Write(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the output folder: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("output folder %s is not empty: import writes a new evidence folder", dir)
	}
	paths := make([]string, 0, len(r.Files))
	for p := range r.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("creating the folder for %s: %w", p, err)
		}
		if err := os.WriteFile(dst, r.Files[p], 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	b, err := r.ReportJSON()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	// The node's folder, even when the paste held only cluster evidence: analyze
	// judges the nodes it finds folders for.
	if r.Report.Node != "" {
		if err := os.MkdirAll(filepath.Join(dir, "nodes", r.Report.Node), 0o755); err != nil {
			return fmt.Errorf("creating the node's folder: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", ReportFile, err)
	}
	return nil
}

// ReportJSON is import.json's content.
func (r Result) ReportJSON() ([]byte, error) {
	b, err := json.MarshalIndent(r.Report, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the import report: %w", err)
	}
	return append(b, '\n'), nil
}
