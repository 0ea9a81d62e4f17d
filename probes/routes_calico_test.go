package probes_test

import (
	"bytes"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// editedScenario copies a scenario's tree, passing each file through edit; a nil result
// leaves the file out.
func editedScenario(t *testing.T, name string, edit func(path string, b []byte) []byte) fs.FS {
	t.Helper()
	tree, _, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	if err := fs.WalkDir(tree, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(tree, path)
		if out := edit(path, b); out != nil {
			m[path] = &fstest.MapFile{Data: out}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRoutesCalicoBGP: on a windows-bgp node NET-ROUTES passes with a BGP-learned route
// via every peer node, warns when a peer has none, fails with no BGP route at all or
// with RemoteAccess stopped, and skips evidence collected before routes.json had
// Protocol. ConvertTo-Json's number for the enum (14) counts as Bgp.
func TestRoutesCalicoBGP(t *testing.T) {
	p, _ := probes.Default().Get("NET-ROUTES")
	noProtocol := regexp.MustCompile(`,\s*"Protocol":\s*"[A-Za-z]+"`)
	rrasRunning := regexp.MustCompile(`("Name":\s*"RemoteAccess",\s*"State":\s*)"Running"`)
	for _, tc := range []struct {
		name   string
		routes func([]byte) []byte
		svcs   func([]byte) []byte
		noCNI  bool
		want   probes.Status
		says   string
	}{
		{name: "healthy", want: probes.Pass, says: "all 2 peer node(s)"},
		{name: "enum as number", routes: func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"Protocol":  "Bgp"`), []byte(`"Protocol":  14`))
		}, want: probes.Pass, says: "all 2 peer node(s)"},
		{name: "one peer without a route", routes: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"NextHop":  "10.0.0.11"`), []byte(`"NextHop":  "10.0.0.250"`), 1)
		}, want: probes.Warn, says: "none via k8s-w1 (10.0.0.11)"},
		{name: "no BGP route", routes: func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"Protocol":  "Bgp"`), []byte(`"Protocol":  "NetMgmt"`))
		}, want: probes.Fail, says: "no BGP-learned route"},
		{name: "RemoteAccess stopped", svcs: func(b []byte) []byte {
			return rrasRunning.ReplaceAll(b, []byte(`${1}"Stopped"`))
		}, want: probes.Fail, says: "RemoteAccess (RRAS) service is Stopped"},
		// rke2 keeps its conflist where the sweep does not look: the L2Bridge network
		// Calico still says windows-bgp.
		{name: "no CNI config", noCNI: true, want: probes.Pass, says: "all 2 peer node(s)"},
		{name: "evidence without Protocol", routes: func(b []byte) []byte {
			return noProtocol.ReplaceAll(b, nil)
		}, want: probes.Skip, says: "no Protocol column"},
		// Without the column, no route of any protocol via a peer still decides it.
		{name: "evidence without Protocol, no route via a peer", routes: func(b []byte) []byte {
			b = noProtocol.ReplaceAll(b, nil)
			b = bytes.ReplaceAll(b, []byte(`"NextHop":  "10.0.0.11"`), []byte(`"NextHop":  "10.0.0.250"`))
			return bytes.ReplaceAll(b, []byte(`"NextHop":  "10.0.0.10"`), []byte(`"NextHop":  "10.0.0.250"`))
		}, want: probes.Fail, says: "no route via any of Calico"},
	} {
		tree := editedScenario(t, "layout-calico-bgp", func(path string, b []byte) []byte {
			switch {
			case tc.noCNI && path == "nodes/win-calico-bgp-01/cni-config.json":
				return nil
			case tc.routes != nil && path == "nodes/win-calico-bgp-01/routes.json":
				out := tc.routes(b)
				if bytes.Equal(out, b) {
					t.Fatalf("%s: the edit left routes.json unchanged", tc.name)
				}
				return out
			case tc.svcs != nil && path == "nodes/win-calico-bgp-01/services.json":
				out := tc.svcs(b)
				if bytes.Equal(out, b) {
					t.Fatalf("%s: the edit left services.json unchanged", tc.name)
				}
				return out
			}
			return b
		})
		f := probes.RunProbe(p, "win-calico-bgp-01", evidence.Evidence{FS: tree})[0]
		if f.Status != tc.want || !strings.Contains(f.Summary, tc.says) {
			t.Errorf("%s: %s %q, want %s saying %q", tc.name, f.Status, f.Summary, tc.want, tc.says)
		}
	}
}
