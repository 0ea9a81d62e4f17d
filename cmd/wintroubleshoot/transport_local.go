package main

import (
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/local"
)

// localTransport runs the sweep on this machine: the tool started on the Windows node
// itself (RDP, a HostProcess pod). It has no options and no password.
func localTransport() *transportSpec {
	return &transportSpec{
		kinds:         []kindSpec{{transport.Local, 0, "run on the Windows node itself"}},
		needsPassword: func() bool { return false },
		dial: func(transport.Config, func(string)) (transport.Transport, error) {
			return local.New()
		},
	}
}
