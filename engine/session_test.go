package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

func TestResolveTargets(t *testing.T) {
	config := func(kind transport.Kind, host string, port int) transport.Config {
		return transport.Config{Kind: kind, Host: host, Port: port, User: "u"}
	}
	show := func(ts []Target) []string {
		var out []string
		for _, t := range ts {
			out = append(out, fmt.Sprintf("%s=%s://%s:%d", t.Name, t.Transport.Kind, t.Transport.Host, t.Transport.Port))
		}
		return out
	}
	found := []Discovered{{Name: "win-b", Address: "10.0.0.2"}, {Name: "win-a", Address: "10.0.0.1"}}
	over := []Override{{Name: "win-b", Kind: transport.SSH, Host: "jump", Port: 2222}, {Name: "win-z", Kind: transport.WinRM, Host: "10.9.9.9"}}
	cases := []struct {
		name       string
		found      []Discovered
		over       []Override
		want       []string
		warnsAbout string
	}{
		{"discovered only", found, nil, []string{"win-a=winrm-https://10.0.0.1:0", "win-b=winrm-https://10.0.0.2:0"}, ""},
		{"override reroutes, unknown warns", found, over, []string{"win-a=winrm-https://10.0.0.1:0", "win-b=ssh://jump:2222"}, "win-z"},
		{"no cluster: the overrides are the list", nil, over, []string{"win-b=ssh://jump:2222", "win-z=winrm://10.9.9.9:0"}, ""},
	}
	for _, c := range cases {
		got, warns := ResolveTargets(c.found, c.over, transport.WinRMHTTPS, config)
		if !reflect.DeepEqual(show(got), c.want) {
			t.Errorf("%s: %v, want %v", c.name, show(got), c.want)
		}
		if (c.warnsAbout == "") != (len(warns) == 0) || c.warnsAbout != "" && !strings.Contains(warns[0], c.warnsAbout) {
			t.Errorf("%s: warnings %v, want one about %q", c.name, warns, c.warnsAbout)
		}
	}
}
