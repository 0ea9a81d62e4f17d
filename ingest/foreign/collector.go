package foreign

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
)

// collector is one foreign collector: how its output is recognized and mapped.
type collector struct {
	name     string
	upstream string // the script the mapping follows, repo path @ commit
	cluster  bool   // its bundles are the cluster side
	// roots are the folders of a source (relative, "" for its top) holding its output.
	roots func(files map[string]bool) []string
	// wants says which files, relative to a root, the mapping reads.
	wants func(rel string) bool
	// known are the other files it writes (path.Match patterns), with why they are not read.
	known []knownFile
	// read maps one root's files.
	read func(m *mapper)
}

type knownFile struct{ glob, why string }

// collectors are tried in this order; a root found by one is not offered to the later
// ones (an AKS zip holds collectlogs.ps1's files at its top).
func collectors() []collector {
	return []collector{aksCollector(), eksCollector(), antreaCollector(), collectlogsCollector(), clusterDumpCollector()}
}

// mapped is one recognized bundle, its evidence not yet placed under a node.
type mapped struct {
	b       Bundle
	node    map[string][]byte // node evidence by file name
	cluster map[string][]byte // cluster evidence by path
	hosts   []string          // names the bundle gives its node, best first
	ips     []string          // the node's IPv4 addresses, to find it in a cluster dump
	isDump  bool              // the cluster side (a cluster dump), not a node's bundle
}

// withRoot lists the folders holding all the given files (a root for each).
func withRoot(files map[string]bool, need ...string) []string {
	var out []string
	for f := range files {
		if path.Base(f) != path.Base(need[0]) || !strings.HasSuffix("/"+f, "/"+need[0]) {
			continue
		}
		root := strings.TrimSuffix(strings.TrimSuffix(f, need[0]), "/")
		ok := true
		for _, n := range need[1:] {
			if !files[join(root, n)] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, root)
		}
	}
	sort.Strings(out)
	return out
}

func join(root, rel string) string {
	if root == "" {
		return rel
	}
	return root + "/" + rel
}

func under(name, root string) (string, bool) {
	if root == "" {
		return name, true
	}
	rel, ok := strings.CutPrefix(name, root+"/")
	return rel, ok
}

// recognize finds every collector's bundles in one source and maps each.
func recognize(ctx context.Context, src *source) ([]*mapped, error) {
	files := make(map[string]bool, len(src.entries))
	for _, e := range src.entries {
		files[e.name] = true
	}
	var claimed []string
	var out []*mapped
	for _, c := range collectors() {
		for _, root := range c.roots(files) {
			if claimedBy(root, claimed) {
				continue
			}
			m, err := mapRoot(ctx, src, c, root)
			if err != nil {
				return nil, err
			}
			if root == "" && len(src.entries) == 1 && len(m.b.Evidence) == 0 {
				continue // one file given alone that is no dump after all
			}
			claimed = append(claimed, root)
			out = append(out, m)
		}
	}
	return out, nil
}

func claimedBy(root string, claimed []string) bool {
	for _, c := range claimed {
		if c == "" || root == c || strings.HasPrefix(root, c+"/") {
			return true
		}
	}
	return false
}

// mapRoot loads the files a collector reads under one root and maps them.
func mapRoot(ctx context.Context, src *source, c collector, root string) (*mapped, error) {
	var rels []string
	want := map[string]bool{}
	for _, e := range src.entries {
		rel, ok := under(e.name, root)
		if !ok {
			continue
		}
		rels = append(rels, rel)
		if c.wants(rel) {
			want[e.name] = true
		}
	}
	data, err := src.load(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("reading the %s bundle in %s: %w", c.name, src.label, err)
	}
	m := &mapper{mapped: &mapped{node: map[string][]byte{}, cluster: map[string][]byte{}},
		files: map[string][]byte{}, rels: rels, gave: map[string]bool{}, tried: map[string]string{}}
	for name, b := range data {
		rel, _ := under(name, root)
		m.files[rel] = b
	}
	m.b = Bundle{Collector: c.name, Upstream: c.upstream, Source: src.label}
	m.isDump = c.cluster
	if root != "" {
		m.b.Source += " (" + root + "/)"
	}
	c.read(m)
	m.sortOut(c)
	return m.mapped, nil
}

// sortOut files every file of the root as read, known or unknown.
func (m *mapper) sortOut(c collector) {
	for _, rel := range m.rels {
		switch why, tried := m.tried[rel]; {
		case m.gave[rel]:
			m.b.Read = append(m.b.Read, rel)
		case tried:
			m.b.Known = append(m.b.Known, rel+": "+why)
		default:
			if k, ok := matchKnown(c.known, rel); ok {
				m.b.Known = append(m.b.Known, rel+": "+k)
			} else {
				m.b.Unknown = append(m.b.Unknown, rel)
			}
		}
	}
	for p := range m.node {
		m.b.Evidence = append(m.b.Evidence, p)
	}
	for p := range m.cluster {
		m.b.Evidence = append(m.b.Evidence, p)
	}
	sort.Strings(m.b.Evidence)
	if n := len(m.b.Unknown); n > 0 {
		m.b.Notes = append(m.b.Notes, fmt.Sprintf("%d files are in no layout of %s this reader knows (a newer version?): %s",
			n, c.name, strings.Join(firstN(m.b.Unknown, 10), ", ")))
	}
}

func matchKnown(ks []knownFile, rel string) (string, bool) {
	for _, k := range ks {
		if ok, _ := path.Match(k.glob, rel); ok {
			return k.why, true
		}
		if strings.HasSuffix(k.glob, "/**") && strings.HasPrefix(rel, strings.TrimSuffix(k.glob, "**")) {
			return k.why, true
		}
	}
	return "", false
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), fmt.Sprintf("… %d more", len(s)-n))
}
