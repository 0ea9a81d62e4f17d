// Package transports is the list of every way to reach a node. A new transport is its
// package under collect/transport, with a Spec, and one line here.
package transports

import (
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/auto"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/local"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/podexec"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/ssh"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/winrm"
)

// Registry makes the list, each transport with its own options, in the order --transport
// help shows them; the first is the default. Each call has options of its own: a command
// binds one registry's flags and dials through the same registry.
func Registry() transport.Registry {
	var r transport.Registry
	r = transport.Registry{
		winrm.Spec(),
		ssh.Spec(),
		local.Spec(),
		hostprocess.Spec(),
		podexec.Spec(),
		auto.Spec(func() transport.Registry { return r }),
	}
	return r
}
