package probes_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestUndecodableIsAnError: a declared file that is present but not decodable makes every
// probe reading it an Error naming that file, never a judgement as if it were absent (an
// events.json that is not JSON is not "no events").
func TestUndecodableIsAnError(t *testing.T) {
	for _, tc := range []struct{ scenario, file, probe string }{
		{"layout-kubeadm-flannel-hostprocess", "cluster/events.json", "NODE-TAINT"},
		{"layout-kubeadm-flannel-hostprocess", "cluster/events.json", "POD-IMAGE-BUILD"},
		{"layout-aks-azure-cni", "nodes/akswin000000/containerd-config.toml", "IMG-PAUSE"},
		{"layout-kubeadm-flannel-hostprocess", "cluster/pods.json", "SVC-KUBEPROXY"},
	} {
		tree, _, _, err := scenarios.Load(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		m := fstest.MapFS{}
		if err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(tree, p)
			m[p] = &fstest.MapFile{Data: b}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		m[tc.file] = &fstest.MapFile{Data: []byte("<html>502 Bad Gateway</html>\n")}
		p, ok := probes.Default().Get(tc.probe)
		if !ok {
			t.Fatalf("no probe %s", tc.probe)
		}
		node := strings.Split(strings.TrimPrefix(tc.file, "nodes/"), "/")[0]
		if strings.HasPrefix(tc.file, "cluster/") {
			_, meta, _, _ := scenarios.Load(tc.scenario)
			node = meta.Nodes[0]
		}
		f := probes.RunProbe(p, node, evidence.Evidence{FS: m})[0]
		if f.Status != probes.Error || !strings.Contains(f.Summary, tc.file) || !slices.Equal(f.Evidence, []string{tc.file}) {
			t.Errorf("%s with a garbled %s: %s %q evidence %v; want an error naming only that file", tc.probe, tc.file, f.Status, f.Summary, f.Evidence)
		}
	}
}
