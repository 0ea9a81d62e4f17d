package fakenode

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

func TestKlogFiles(t *testing.T) {
	start := time.Date(2024, 5, 2, 9, 14, 7, 0, time.UTC)
	log := []byte("I0502 09:14:07.000001    3416 server.go:1] started\nE0502 09:15:00.000002    3416 kubelet.go:2] boom\n")
	files, declared := klogFiles(`"c:\k\kubelet.exe" --v=6 --log-dir=c:\k --logtostderr=false`, 3416, "WIN-1", start, log)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.path)
	}
	want := []string{
		`c:\k\kubelet.exe.WIN-1.WIN-1_Administrator.log.INFO.20240502-091407.3416`, `c:\k\kubelet.exe.INFO`,
		`c:\k\kubelet.exe.WIN-1.WIN-1_Administrator.log.WARNING.20240502-091407.3416`, `c:\k\kubelet.exe.WARNING`,
		`c:\k\kubelet.exe.WIN-1.WIN-1_Administrator.log.ERROR.20240502-091407.3416`, `c:\k\kubelet.exe.ERROR`,
	}
	if !declared || !slices.Equal(paths, want) {
		t.Errorf("--log-dir: %v %q\nwant %q", declared, paths, want)
	}
	if got := string(klogLines(log, 'E')); got != "E0502 09:15:00.000002    3416 kubelet.go:2] boom\n" {
		t.Errorf("the ERROR file holds %q", got)
	}
	if files, _ := klogFiles(`c:\k\kubelet.exe --log-dir c:\k --logtostderr=false`, 1, "WIN-1", start, []byte("I0502 x\n")); len(files) != 2 {
		t.Errorf("--log-dir with a space, only info lines: %+v", files)
	}
	if files, declared := klogFiles(`c:\k\kube-proxy.exe --logtostderr=false --log-file=c:\k\kube-proxy.log --log-dir=c:\k`, 1, "WIN-1", start, log); !declared ||
		len(files) != 1 || files[0].path != `c:\k\kube-proxy.log` {
		t.Errorf("--log-file wins over --log-dir: %+v", files)
	}
	for _, line := range []string{`c:\k\kubelet.exe --log-dir=c:\k`, `c:\k\kubelet.exe --log-dir=c:\k --logtostderr`, `kubelet.exe --logtostderr=false`} {
		if files, declared := klogFiles(line, 1, "WIN-1", start, log); declared {
			t.Errorf("%s: klog writes to stderr or %%TEMP%% only, not %+v", line, files)
		}
	}
}

// withKubelet is a scenario's tree with the kubelet's command line replaced.
func withKubelet(t *testing.T, name, kubeletLine string) (fstest.MapFS, string) {
	t.Helper()
	fsys, meta, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	if kubeletLine != "" {
		procs := "nodes/" + node + "/processes.json"
		old := string(m[procs].Data)
		i := strings.Index(old, `"\"c:\\k\\kubelet.exe\"`)
		j := strings.Index(old[i:], "\n")
		if i < 0 || j < 0 {
			t.Fatalf("no kubelet command line in %s", procs)
		}
		m[procs].Data = []byte(old[:i] + kubeletLine + old[i+j:])
	}
	return m, node
}

// TestLogSnippetsFindKlogNames: the fake node serves a log only to a snippet whose paths
// match the file klog writes for the scenario's command line; a snippet looking for
// another name fails as it would on the node.
func TestLogSnippetsFindKlogNames(t *testing.T) {
	logDir := `"\"c:\\k\\kubelet.exe\" --hostname-override=win-1 --v=6 --kubeconfig=c:\\k\\config --log-dir=c:\\k --logtostderr=false"`
	// The scenario's own kubelet follows SDN's Kubelet-Options (--log-dir); the --log-file
	// cases name their file.
	logFile := `"\"c:\\k\\kubelet.exe\" --hostname-override=win-1 --v=6 --kubeconfig=c:\\k\\config --log-file=c:\\k\\kubelet.log --logtostderr=false"`
	for _, tc := range []struct {
		name, kubelet string
		from, to      string // the snippets' paths changed so: a snippet looking for the wrong name
		wantErr       string // what log-kubelet.log (Read-WtsTail) then says; kubelet.log says "no kubelet log found"
	}{
		{name: "klog --log-dir, snippets as shipped", kubelet: logDir},
		{name: "--log-file, snippets as shipped", kubelet: logFile},
		{name: "klog --log-dir, snippet wants kubelet.log", kubelet: logDir,
			from: `'C:\k\kubelet.exe.*.log.INFO.*', `, to: ``, wantErr: `no kubelet log in C:\k\kubelet*.log, C:\var\log\kubelet\*.log, C:\etc\kubernetes\logs\kubelet*.log`},
		{name: "klog --log-dir, snippet misses the user part", kubelet: logDir,
			from: `'C:\k\kubelet.exe.*.log.INFO.*', 'C:\k\kubelet*.log'`, to: `'C:\k\kubelet.exe.*.INFO.log'`, wantErr: `no kubelet log in C:\k\kubelet.exe.*.INFO.log, C:\var\log\kubelet\*.log, C:\etc\kubernetes\logs\kubelet*.log`},
		{name: "--log-file, snippet wants only the klog name", kubelet: logFile,
			from: `'C:\k\kubelet*.log', `, to: ``, wantErr: `no kubelet log in C:\k\kubelet.exe.*.log.INFO.*, C:\var\log\kubelet\*.log, C:\etc\kubernetes\logs\kubelet*.log`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, node := withKubelet(t, "healthy-sdn-l2bridge-docker", tc.kubelet)
			want := fsys["nodes/"+node+"/kubelet.log"].Data
			fsys["nodes/"+node+"/log-kubelet.log"] = &fstest.MapFile{Data: want} // the snapshot's copy
			script, err := scripts.Sweep([]scripts.Call{{Name: "log-kubelet.log"}, {Name: "kubelet.log"}, {Name: "kube-proxy.log"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.from != "" {
				changed := strings.ReplaceAll(script, tc.from, tc.to)
				if changed == script {
					t.Fatalf("the snippets no longer hold %q", tc.from)
				}
				script = changed
			}
			n := NewNode(NodeOptions{Scenario: fsys, Node: node})
			r := n.Respond(t.Context(), scripts.CommandLine(), []byte(script))
			res, _, err := scripts.Split(r.Stdout)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]scripts.Result{}
			for _, x := range res {
				got[x.Name] = x
			}
			if k := got["kube-proxy.log"]; k.Failed() || len(k.Stdout) == 0 {
				t.Errorf("kube-proxy's log (its --log-file unchanged): exit %d %q", k.Exit, k.Stderr)
			}
			for snippet, wantErr := range map[string]string{"log-kubelet.log": tc.wantErr, "kubelet.log": "no kubelet log found"} {
				k := got[snippet]
				switch {
				case tc.wantErr == "" && (k.Failed() || string(k.Stdout) != string(want)):
					t.Errorf("%s: exit %d %q, %d bytes", snippet, k.Exit, k.Stderr, len(k.Stdout))
				case tc.wantErr != "" && (k.Exit != 1 || string(k.Stderr) != wantErr || len(k.Stdout) != 0):
					t.Errorf("%s looking for the wrong name: exit %d %q\nwant %q", snippet, k.Exit, k.Stderr, wantErr)
				}
			}
		})
	}
}

// TestEveryScenarioLogIsFound: the shipped log snippets find every scenario's declared
// log files, so each scenario's logs reach the probes as its evidence says.
func TestEveryScenarioLogIsFound(t *testing.T) {
	snippets := []string{"kubelet.log", "kube-proxy.log", "log-kubelet.log", "log-kube-proxy.log"}
	declared := 0
	for _, name := range scenarios.Names() {
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range meta.Nodes {
			n := NewNode(NodeOptions{Scenario: fsys, Node: node})
			for _, s := range snippets {
				if log, ok := n.file(s); ok {
					if _, errText, isDeclared := n.answerLog(s, callSourceOf(t, s), log); isDeclared {
						declared++
						if errText != "" {
							t.Errorf("%s/%s: %s: %s", name, node, s, errText)
						}
					}
				}
			}
		}
	}
	if declared == 0 {
		t.Error("no scenario declares its log files: the check checked nothing")
	}
}

func callSourceOf(t *testing.T, snippet string) string {
	t.Helper()
	script, err := scripts.Sweep([]scripts.Call{{Name: snippet}})
	if err != nil {
		t.Fatal(err)
	}
	return callSource(script, snippet)
}
