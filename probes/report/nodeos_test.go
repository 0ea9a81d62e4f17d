package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestNodeHeadingsShowKinds: with NodeOS set (a mixed run), the text headings and the
// Markdown summary name each node's kind; without it they name nodes alone.
func TestNodeHeadingsShowKinds(t *testing.T) {
	fs := []probes.Finding{
		{Probe: "LINUX-SWAP", Node: "node-1", Status: probes.Fail, Summary: "swap is on"},
		{Probe: "HOST-UPTIME", Node: "win-1", Status: probes.Pass, Summary: "ok"},
	}
	kinds := map[string]string{"node-1": "linux", "win-1": "windows"}
	for _, c := range []struct {
		format Format
		want   []string
	}{
		{Text, []string{"node-1 (linux)", "win-1 (windows)"}},
		{Markdown, []string{"| node-1 (linux) |", "| win-1 (windows) |"}},
	} {
		var with, without bytes.Buffer
		if err := Write(&with, c.format, Meta{}, fs, Options{NodeOS: kinds}); err != nil {
			t.Fatal(err)
		}
		if err := Write(&without, c.format, Meta{}, fs, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(with.String(), w) {
				t.Errorf("%s lacks %q:\n%s", c.format, w, with.String())
			}
		}
		if strings.Contains(without.String(), "(linux)") || strings.Contains(without.String(), "(windows)") {
			t.Errorf("%s without NodeOS names kinds:\n%s", c.format, without.String())
		}
	}
}
