package auto

import (
	"errors"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// TestAutoPlanLinux: for a Linux worker (its first command is the shell sweep) auto offers
// the configured credential to SSH, never WinRM, and only without one the privileged pod;
// a Windows node keeps WinRM first and the pod as fallback.
func TestAutoPlanLinux(t *testing.T) {
	for _, c := range []struct {
		line string
		cfg  transport.Config
		want []transport.Kind
	}{
		{"sh -s", transport.Config{Host: "10.0.0.5", Password: "pw", Node: "n"}, []transport.Kind{transport.SSH}},
		{"sudo -n sh -s", transport.Config{Host: "10.0.0.5", Password: "pw", KeyFile: "k", Node: "n"}, []transport.Kind{transport.SSH}},
		{"sh -s", transport.Config{Host: "10.0.0.5", UseAgent: true, Node: "n"}, []transport.Kind{transport.SSH}},
		{"sh -s", transport.Config{Node: "n"}, []transport.Kind{transport.HostProcess}},
		{"powershell.exe -NoProfile", transport.Config{Host: "10.0.0.5", Password: "pw", Node: "n"}, []transport.Kind{transport.WinRMHTTPS, transport.HostProcess}},
	} {
		var tried []transport.Kind
		a := &tr{dial: func(cfg transport.Config) (transport.Transport, error) {
			tried = append(tried, cfg.Kind)
			return nil, errors.New("refused")
		}}
		a.plan(c.cfg)
		if _, err := a.Run(t.Context(), transport.Command{CommandLine: c.line}); err == nil {
			t.Errorf("%q: no candidate answered, yet no error", c.line)
		}
		if !slices.Equal(tried, c.want) {
			t.Errorf("%q %+v: tried %v, want %v", c.line, c.cfg, tried, c.want)
		}
	}
}
