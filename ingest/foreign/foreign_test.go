package foreign_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/foreign"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// layout is one way a collector's output reaches support, built from a scenario.
type layout struct {
	name      string
	collector string // the Bundle.Collector it must be recognized as
	// build writes the node bundles and the cluster dump of a scenario under dir (a case
	// folder) and returns the inputs to give Open.
	build func(t *testing.T, dir string, tree fs.FS, nodes []string) []string
}

func layouts() []layout {
	dump := func(t *testing.T, dir string, tree fs.FS, stdout bool) string {
		if stdout {
			return folder(t, filepath.Join(dir, "dump"), files{"cluster-info.txt": dumpStdout(t, tree)})
		}
		return folder(t, filepath.Join(dir, "cluster-info"), dumpFiles(t, tree))
	}
	return []layout{
		{"collectlogs-legacy-folder", "collectlogs.ps1", func(t *testing.T, dir string, tree fs.FS, nodes []string) []string {
			for _, n := range nodes {
				folder(t, filepath.Join(dir, "debug", n+"-x1y2z3.abc"), collectlogsFiles(t, tree, n, "legacy"))
			}
			dump(t, dir, tree, false)
			return []string{dir}
		}},
		{"collectlogs-2024-zip", "collectlogs.ps1", func(t *testing.T, dir string, tree fs.FS, nodes []string) []string {
			for _, n := range nodes {
				zipped(t, dir, n+"-collectlogs.zip", collectlogsFiles(t, tree, n, "2024"))
			}
			dump(t, dir, tree, true)
			return []string{dir}
		}},
		{"aks-zip", "collect-windows-logs.ps1 (AKS)", func(t *testing.T, dir string, tree fs.FS, nodes []string) []string {
			var in []string
			for _, n := range nodes {
				in = append(in, zipped(t, dir, hostName(t, tree, n)+"-20261201-210000_logs.zip", aksFiles(t, tree, n)))
			}
			return append(in, dump(t, dir, tree, false)) // several paths, one tree
		}},
		{"antrea-tar.gz", "antctl supportbundle (Antrea, Windows agent)", func(t *testing.T, dir string, tree fs.FS, nodes []string) []string {
			for _, n := range nodes {
				tarGz(t, dir, "agent_"+n+".tar.gz", antreaFiles(t, tree, n))
			}
			dump(t, dir, tree, false)
			return []string{dir}
		}},
		{"eks-zip", "eks-log-collector.ps1 (EKS)", func(t *testing.T, dir string, tree fs.FS, nodes []string) []string {
			for i, n := range nodes {
				zipped(t, dir, "eks_i-0123456789abcdef"+string(rune('0'+i))+"_20261201T210000Z.zip", eksFiles(t, tree, n))
			}
			tarGz(t, dir, "cluster-info.tar.gz", dumpFiles(t, tree))
			return []string{dir}
		}},
	}
}

// TestBundlesJudgeLikeJSON writes every scenario out as each collector would, with a
// cluster dump next to it, reads the case folder back and judges it: every finding of
// the scenario's Windows nodes must equal the JSON evidence's, or be a skip (the bundle
// does not hold what the probe reads); never another status. It reports the share of
// our Windows node evidence keys each layout fills.
func TestBundlesJudgeLikeJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("judges every scenario four times")
	}
	nodeKeys := 0
	for _, k := range evidence.NodeKeys(false) {
		if k.Meta().OS == "" {
			nodeKeys++
		}
	}
	for _, l := range layouts() {
		t.Run(l.name, func(t *testing.T) {
			same, skipped, partial, filled, present := 0, 0, 0, map[string]int{}, 0
			for _, name := range scenarios.Names() {
				tree, meta, _, err := scenarios.Load(name)
				if err != nil {
					t.Fatal(err)
				}
				want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: tree}, windowsNodes(tree, meta.Nodes))
				if err != nil {
					t.Fatal(err)
				}
				nodes := windowsNodes(tree, meta.Nodes)
				inputs := l.build(t, t.TempDir(), tree, nodes)
				res, err := foreign.Open(context.Background(), inputs, foreign.Options{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkRecognized(t, name, l, res, nodes)
				got, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: res.FS()}, nodes)
				if err != nil {
					t.Fatal(err)
				}
				s, k, p := compare(t, name+"/"+l.name, want, got, res.Files)
				same, skipped, partial = same+s, skipped+k, partial+p
				for _, n := range nodes {
					for _, key := range evidence.NodeKeys(false) {
						if key.Meta().OS != "" {
							continue
						}
						if _, err := fs.Stat(tree, key.Path(n)); err != nil {
							continue
						}
						present++
						if _, ok := res.Files[key.Path(n)]; ok {
							filled[key.Meta().Name]++
						}
					}
				}
			}
			var names []string
			total := 0
			for n, c := range filled {
				names = append(names, n)
				total += c
			}
			sort.Strings(names)
			t.Logf("%s: %d findings equal to the JSON evidence's, %d honest skips, %d misses where the JSON finding rests on evidence the bundle lacks; fills %d of %d Windows node keys (%s), %.0f%% of the node files the scenarios hold",
				l.name, same, skipped, partial, len(names), nodeKeys, strings.Join(names, ", "), 100*float64(total)/float64(max(present, 1)))
			if same == 0 {
				t.Fatal("no finding matched: the bundle was not read")
			}
		})
	}
}

// windowsNodes are the scenario's Windows nodes (the collectors here are Windows ones):
// those with HNS networks or host facts.
func windowsNodes(tree fs.FS, nodes []string) []string {
	var out []string
	for _, n := range nodes {
		for _, f := range []string{evidence.FileHNSNetworks, evidence.FileHost} {
			if _, err := fs.Stat(tree, evidence.NodeFile(n, f)); err == nil {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// checkRecognized insists the bundles were told apart: each node's collector, and the dump.
func checkRecognized(t *testing.T, scenario string, l layout, res *foreign.Result, nodes []string) {
	t.Helper()
	var gotNodes []string
	dump := false
	for _, b := range res.Bundles {
		switch b.Collector {
		case l.collector:
			gotNodes = append(gotNodes, b.Node)
			if b.Version == "" {
				t.Errorf("%s/%s: no version named for %s", scenario, l.name, b.Source)
			}
		case "kubectl cluster-info dump":
			dump = true
		default:
			t.Errorf("%s/%s: %s recognized as %s", scenario, l.name, b.Source, b.Collector)
		}
		for _, u := range b.Unknown {
			t.Errorf("%s/%s: %s: the generator wrote %s, which the reader does not know", scenario, l.name, b.Collector, u)
		}
	}
	sort.Strings(gotNodes)
	want := slices.Clone(nodes)
	sort.Strings(want)
	if !slices.Equal(gotNodes, want) || !dump {
		t.Errorf("%s/%s: node bundles for %v (want %v), cluster dump %v; %s", scenario, l.name, gotNodes, want, dump, res.Describe())
	}
}

func compare(t *testing.T, what string, want, got []probes.Finding, files map[string][]byte) (same, skipped, partial int) {
	t.Helper()
	idx := map[string]probes.Finding{}
	for _, f := range got {
		idx[f.Probe+"/"+f.Node] = f
	}
	for _, w := range want {
		g, ok := idx[w.Probe+"/"+w.Node]
		switch {
		case !ok:
			t.Errorf("%s: %s on %s: no finding from the bundle", what, w.Probe, w.Node)
		case g.Status == w.Status:
			same++
		case g.Status == probes.Skip:
			skipped++
		case g.Status < w.Status && citesMissing(w, files):
			// A miss, never a false alarm: the JSON finding rests on evidence the bundle
			// does not hold (the build in host.json, another node's routes).
			partial++
			t.Logf("%s: %s on %s is %s from the bundle, %s on the JSON evidence, which cites evidence the bundle lacks (%s)", what, w.Probe, w.Node, g.Status, w.Status, g.Summary)
		default:
			t.Errorf("%s: %s on %s is %s from the bundle (%s) but %s on the JSON evidence (%s)", what, w.Probe, w.Node, g.Status, g.Summary, w.Status, w.Summary)
		}
	}
	return same, skipped, partial
}

func citesMissing(f probes.Finding, files map[string][]byte) bool {
	for _, p := range f.Evidence {
		if _, ok := files[p]; !ok {
			return true
		}
	}
	return false
}
