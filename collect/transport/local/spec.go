package local

import "github.com/wintroubleshoot/wintroubleshoot/collect/transport"

// Spec registers the local transport: the sweep on this machine, the tool started on the
// Windows node itself (RDP, a HostProcess pod). It has no options and no password.
func Spec() *transport.Spec {
	return &transport.Spec{
		Kinds:         []transport.KindSpec{{Kind: transport.Local, Use: "run on the Windows node itself"}},
		NeedsPassword: func() bool { return false },
		Dial: func(transport.Config, func(string)) (transport.Transport, error) {
			return New()
		},
	}
}
