package importer_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// corpus is testdata/corpus: pastes laid out as people put them in public threads
// (SOURCES.md names the thread of each).
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// TestCorpusSources: every paste of the corpus names the public thread (or page) it came from.
func TestCorpusSources(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range corpus(t) {
		i := strings.Index(string(b), "| "+name+" | https://")
		if i < 0 {
			t.Errorf("%s has no source in SOURCES.md", name)
		}
	}
}

// TestCorpusGoldens imports every paste of the corpus and compares the evidence and the
// report with its golden (go test -update rewrites them).
func TestCorpusGoldens(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(corpus(t))) {
		in := importer.Input{Name: name, Data: corpus(t)[name]}
		importGolden(t, in, filepath.Join("testdata", "golden", "corpus", strings.TrimSuffix(name, ".txt")+".json"))
	}
}

// TestCorpusVariations: the same paste quoted in a reply (once, twice), with Windows
// line ends, and for the CLI tables cut by a terminal of 80 to 200 columns, gives the
// same evidence.
func TestCorpusVariations(t *testing.T) {
	for name, b := range corpus(t) {
		want := importFiles(t, name, b)
		text := string(b)
		vars := map[string]string{
			"quoted":        quote(text, "> "),
			"quoted twice":  quote(text, "> > "),
			"mail quoted":   quote(quote(text, "> "), ">"),
			"CRLF":          strings.ReplaceAll(text, "\n", "\r\n"),
			"trailing tabs": strings.ReplaceAll(text, "\n", " \n"),
		}
		if strings.HasPrefix(name, "kubectl-get-nodes") {
			for _, w := range []int{80, 100, 120, 160, 200} {
				vars["terminal "+itoa(w)] = paste.TerminalWrap(text, w, true)
			}
		}
		for v, s := range vars {
			got := importFiles(t, name+" "+v, []byte(s))
			if !maps.EqualFunc(want, got, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Errorf("%s, %s: evidence differs:\nwant %v\n got %v", name, v, slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)))
			}
		}
	}
}

func importFiles(t *testing.T, name string, b []byte) map[string][]byte {
	t.Helper()
	res, err := importer.Import([]importer.Input{{Name: name, Data: b}}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Files
}

func quote(s, mark string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return mark + strings.Join(lines, "\n"+mark) + "\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCorpusJudged runs every paste of the corpus through import and analyze (the one
// path both commands take) and checks the deciding facts the pastes show: a NotReady
// node fails NODE-READY, a service START_PENDING fails its probe, and nothing a paste
// leaves out turns into a failure (the unknown fields skip, naming the command).
func TestCorpusJudged(t *testing.T) {
	want := map[string]map[string]probes.Status{
		"kubectl-get-nodes_rhel-root-prompt_2018.txt":                       {"NODE-READY": probes.Fail},
		"kubectl-describe-node_quote-prompt_ws2022-containerd-notready.txt": {"NODE-READY": probes.Fail},
		"kubectl-describe-node_2019-layout_flannel-hostgw-unreachable.txt":  {"NODE-READY": probes.Fail},
		"kubectl-get-nodes-wide_vagrant-prompt_antrea-ws2019-eval.txt":      {"NODE-READY": probes.Skip},
		"sc-query_gce-serial-prefix_kubelet-start-pending.txt":              {"SVC-KUBELET": probes.Fail},
		"sc-query_acs-engine_kubelet-running_then-errlog.txt":               {"SVC-KUBELET": probes.Pass},
		"hns-networks_list_ps-system32-prompt_nat-cut-at-subnets.txt":       {},
		"kubectl-get-nodes_vagrant-prompt-repeated_notready-then-ready.txt": {},
		"describe-pod-events_pause-image-invalid-reference.txt":             {},
		"kubectl-describe-node_conditions-alone_wide-console-joined.txt":    {},
		"hns-endpoints_select-table_state3_calico-continuation-prompt.txt":  {},
		"kubectl-describe-node_2015-layout_conditions-without-dashes.txt":   {},
		"kubectl-get-nodes-wide_no-prompt_containerd-ws2019.txt":            {},
		"describe-pod-events_2018-kubelet-comma-host_cni-json-error.txt":    {},
		"hns-networks_list_german-extensions_ps-fence_flannel-vxlan.txt":    {},
		"kubelet-log_klog-header_perfcounter-errors.txt":                    {},
		"flanneld-log_ps-prompt-continuation_vxlan-create.txt":              {},
		// The host's build alone judges the build (a build older than 2019 fails
		// HOST-PREREQ); the rest skips, naming the command (the Containers feature).
		"osversion_ps-space-prompt_docker-ws2019.txt": {"HOST-PREREQ": probes.Skip, "HOST-KNOWN-BUILD": probes.Pass,
			"HOST-UPTIME": probes.Skip, "HOST-NAME": probes.Skip},
		"osversion-version_systeminfo-excerpt_ws2016-registry-revision.txt":     {"HOST-PREREQ": probes.Fail},
		"systeminfo_ps-vagrant-prompt_rke2-ws2019-eval.txt":                     {"HOST-PREREQ": probes.Skip, "HOST-UPTIME": probes.Skip},
		"ver_cmd-prompt_users-dir_ws2004.txt":                                   {"HOST-PREREQ": probes.Skip, "HOST-KNOWN-BUILD": probes.Pass},
		"get-itemproperty-currentversion_list_collapsed-padding_win10-1909.txt": {"HOST-PREREQ": probes.Skip, "HOST-KNOWN-BUILD": probes.Pass},
	}
	node := map[string]string{
		"kubectl-get-nodes_rhel-root-prompt_2018.txt":                       "k8s-worker-1",
		"kubectl-describe-node_quote-prompt_ws2022-containerd-notready.txt": "winode1",
		"kubectl-describe-node_2019-layout_flannel-hostgw-unreachable.txt":  "ec2amaz-abcd123",
		"kubectl-get-nodes-wide_vagrant-prompt_antrea-ws2019-eval.txt":      "winw1",
		"kubectl-get-nodes_vagrant-prompt-repeated_notready-then-ready.txt": "winw1",
		"kubectl-get-nodes-wide_no-prompt_containerd-ws2019.txt":            "worker-win-2",
	}
	byFlag := map[string]string{
		"kubectl-get-nodes_rhel-root-prompt_2018.txt":     "k8s-worker-1",
		"kubectl-get-no_ps-prompt_kubectl-on-windows.txt": "w1",
	}
	node["kubectl-get-nodes_dollar-prompt_2018-layout.txt"] = "worker2.vagrant.vm"
	all := corpus(t)
	for name, b := range all {
		// No --node: the paste names it (a table's one Windows or NotReady node, a
		// describe, a klog header) or it is the default.
		// Two nodes NotReady, or all Ready without an OS column: the engineer says which.
		res, err := importer.Import([]importer.Input{{Name: name, Data: b}}, importer.Options{Node: byFlag[name]})
		if n := node[name]; n != "" && res.Report.Node != n {
			t.Errorf("%s: node %q (%s), want %q", name, res.Report.Node, res.Report.NodeFrom, n)
		}
		if err != nil {
			t.Fatal(err)
		}
		findings, err := engine.AnalyzeImported(context.Background(), probes.Default(), evidence.Evidence{FS: res.FS()}, &res.Report, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]probes.Status{}
		for _, f := range findings {
			got[f.Probe] = f.Status
			if f.Status == probes.Error {
				t.Errorf("%s: %s could not judge: %s", name, f.Probe, f.Summary)
			}
		}
		for probe, st := range want[name] {
			if got[probe] != st {
				t.Errorf("%s: %s is %v, want %v", name, probe, got[probe], st)
			}
		}
	}
}
