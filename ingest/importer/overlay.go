package importer

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// Overlay is the import analyze can do in memory on a folder a customer filled with
// pasted text: every evidence file that holds console output instead of what its key
// decodes is imported (its node from its path), and what the import gives takes its
// place, and fills slots that are empty. Files that decode stay as they are, and so
// does a broken file that does not look like a paste (its error is the finding). With
// no paste in the folder, fsys comes back as it is and the report is nil.
func Overlay(fsys fs.FS) (fs.FS, *Report, error) {
	nodes, err := fs.ReadDir(fsys, "nodes")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("listing nodes/: %w", err)
	}
	var names []string
	for _, n := range nodes {
		if n.IsDir() {
			names = append(names, n.Name())
		}
	}
	if len(names) == 0 {
		names = []string{""} // cluster files only
	}
	pp := paste.New()
	added := map[string][]byte{}
	var report *Report
	for _, node := range names {
		for _, k := range evidence.All() {
			if k.Meta().Scope == evidence.Node && node == "" {
				continue
			}
			if k.Meta().Scope == evidence.Cluster && node != names[0] {
				// A cluster file is the same for every node: looked at once, not once per
				// node (decoding cluster/pods.json per node made analyze quadratic).
				continue
			}
			p := k.Path(node)
			b, err := fs.ReadFile(fsys, p)
			if err != nil || k.Validate(p, b) == nil || pp.Describe(b) == "" {
				continue
			}
			res, err := Import([]Input{{Name: p, Data: b}}, Options{Node: nodeOr(node)})
			if err != nil {
				return nil, nil, fmt.Errorf("importing the paste in %s: %w", p, err)
			}
			if report == nil {
				report = &Report{Node: res.Report.Node, NodeFrom: "the folder's node names"}
			}
			report.Blocks = append(report.Blocks, res.Report.Blocks...)
			for ip, ib := range res.Files {
				if ip == p || !exists(fsys, ip) || pastedAt(pp, fsys, ip) {
					added[ip] = ib
				}
			}
			if _, ok := res.Files[p]; !ok {
				added[p] = nil // the paste gave nothing for its own slot: it is not evidence
			}
		}
	}
	if report == nil {
		return fsys, nil, nil
	}
	out := evidence.NewTree()
	if err := out.CopyFrom(fsys); err != nil {
		return nil, nil, fmt.Errorf("reading the evidence folder: %w", err)
	}
	for p, b := range added {
		if b == nil {
			out.Delete(p)
			continue
		}
		out.Put(p, b)
	}
	return out.Evidence().FS, report, nil
}

func nodeOr(n string) string {
	if n == "" {
		return DefaultNode
	}
	return n
}

func exists(fsys fs.FS, p string) bool { _, err := fs.Stat(fsys, p); return err == nil }

// pastedAt: the file there is itself a paste (so an import may replace it).
func pastedAt(pp *paste.Parser, fsys fs.FS, p string) bool {
	k, ok := evidence.Of(p)
	if !ok {
		return false
	}
	b, err := fs.ReadFile(fsys, p)
	return err == nil && k.Validate(p, b) != nil && pp.Describe(b) != ""
}
