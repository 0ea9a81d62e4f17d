package probes_test

import (
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// recorder is an evidence tree that notes every file a reader asks for, present or not.
type recorder struct {
	fsys fstest.MapFS
	mu   sync.Mutex
	seen map[string]bool
}

func (r *recorder) note(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[name] = true
}

func (r *recorder) Open(name string) (fs.File, error) { r.note(name); return r.fsys.Open(name) }
func (r *recorder) ReadFile(name string) ([]byte, error) {
	r.note(name)
	return r.fsys.ReadFile(name)
}
func (r *recorder) Stat(name string) (fs.FileInfo, error) { r.note(name); return r.fsys.Stat(name) }

// ReadDir lists folders (nodes/); a listing reads no evidence file.
func (r *recorder) ReadDir(name string) ([]fs.DirEntry, error) { return r.fsys.ReadDir(name) }

// trees are every scenario and after-state as a map, to take files out of.
func trees(t *testing.T) map[string]fstest.MapFS {
	t.Helper()
	out := map[string]fstest.MapFS{}
	add := func(name string, fsys fs.FS) {
		m := fstest.MapFS{}
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasPrefix(p, "nodes/") || strings.HasPrefix(p, "cluster/")) {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			m[p] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	for _, name := range scenarios.Names() {
		fsys, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		add(name, fsys)
		for _, fix := range scenarios.Fixes(name) {
			view, err := scenarios.After(name, fix)
			if err != nil {
				t.Fatal(err)
			}
			add(name+"/after/"+fix, view)
		}
	}
	return out
}

// TestProbesReadWhatTheyDeclare runs every probe on every scenario, also with each
// evidence file removed in turn, and records what it really reads: a read of a key its
// Spec does not list, or a citation of one, fails. Spec.Reads decides what a fix
// re-collects, what an unreachable node skips and what a support engineer is asked for.
func TestProbesReadWhatTheyDeclare(t *testing.T) {
	if testing.Short() {
		// A few hundred thousand sequential probe runs: nothing for the race detector to
		// see, and most of the race pass's time (17 minutes of it). The full pass runs it.
		t.Skip("sequential and long: run without -short")
	}
	reg := probes.Default()
	undeclared := map[string]map[string]string{} // probe -> key -> where
	read := map[string]bool{}                    // probe + " " + key
	flag := func(p probes.Probe, path, where string) {
		k, ok := evidence.Of(path)
		if !ok {
			if strings.HasSuffix(path, "/"+evidence.SweepErr) {
				return // the reason a node's files are missing, read with any of them
			}
			t.Errorf("%s reads %s, which no evidence key declares (%s)", p.ID(), path, where)
			return
		}
		read[p.ID()+" "+k.Meta().Name] = true
		if !slices.ContainsFunc(p.Spec().Reads, func(r evidence.Ref) bool { return r.Meta().Name == k.Meta().Name }) {
			if undeclared[p.ID()] == nil {
				undeclared[p.ID()] = map[string]string{}
			}
			undeclared[p.ID()][k.Meta().Name] = where
		}
	}
	runs := 0
	for name, tree := range trees(t) {
		variants := map[string]fstest.MapFS{"": tree}
		for p := range tree {
			if strings.HasSuffix(p, evidence.ErrSuffix) {
				continue
			}
			v := maps.Clone(tree)
			delete(v, p)
			variants[" without "+p] = v
		}
		nodes := (evidence.Evidence{FS: tree}).Nodes()
		kinds := map[string]evidence.OS{}
		for _, node := range nodes {
			kinds[node] = evidence.NodeOS(evidence.Evidence{FS: tree}, node)
		}
		for vname, v := range variants {
			for _, node := range nodes {
				for _, p := range reg.Probes() {
					if p.OS() != kinds[node] {
						continue // the registry never runs it on this kind of node
					}
					rec := &recorder{fsys: v, seen: map[string]bool{}}
					f := probes.RunProbe(p, node, evidence.Evidence{FS: rec})[0]
					runs++
					where := name + vname + " on " + node
					for path := range rec.seen {
						flag(p, path, where)
					}
					for _, path := range f.Evidence {
						flag(p, path, where+", cited")
					}
					if f.Status != probes.Skip && len(f.Evidence) == 0 {
						t.Errorf("%s on %s: %s finding %q cites no evidence", p.ID(), where, f.Status, f.Summary)
					}
				}
			}
		}
	}
	var ids []string
	for id := range undeclared {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		keys := slices.Sorted(maps.Keys(undeclared[id]))
		for _, k := range keys {
			t.Errorf("%s reads %s but its Spec does not declare it (seen on %s)", id, k, undeclared[id][k])
		}
	}
	// A key declared but never read makes fixes re-collect, and support engineers ask
	// for, what the probe never looks at.
	for _, p := range reg.Probes() {
		for _, k := range p.Spec().Reads {
			if !read[p.ID()+" "+k.Meta().Name] {
				t.Errorf("%s declares %s but reads it in no scenario", p.ID(), k.Meta().Name)
			}
		}
	}
	t.Logf("%d probe runs", runs)
}
