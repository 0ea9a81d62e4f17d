package probes_test

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestRoutesAsAddRoutesWritesThem: microsoft/SDN AddRoutes.ps1 routes a Linux peer's
// podCIDR via <cidr>.1, not via the peer's node IP (the healthy scenario has it so); a
// route via the peer's node IP is healthy too. A next hop that is neither is a warning.
func TestRoutesAsAddRoutesWritesThem(t *testing.T) {
	tree, _, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := probes.Default().Get("NET-ROUTES")
	for _, tc := range []struct {
		hop  string
		want probes.Status
	}{{"10.200.1.1", probes.Pass}, {"10.240.0.21", probes.Pass}, {"10.240.0.99", probes.Warn}} {
		m := fstest.MapFS{}
		if err := fs.WalkDir(tree, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(tree, path)
			if strings.HasSuffix(path, "routes.json") {
				b = bytes.ReplaceAll(b, []byte(`"NextHop":  "10.200.1.1"`), []byte(`"NextHop":  "`+tc.hop+`"`))
			}
			m[path] = &fstest.MapFile{Data: b}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		f := probes.RunProbe(p, "win-1", evidence.Evidence{FS: m})[0]
		if f.Status != tc.want {
			t.Errorf("route to 10.200.1.0/24 via %s: %s %q, want %s", tc.hop, f.Status, f.Summary, tc.want)
		}
	}
}
