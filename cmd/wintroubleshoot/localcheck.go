package main

import (
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// localOnly holds --transport local (and NAME=local://...) to what it is: the sweep of
// the machine the tool runs on. Elsewhere than on Windows there is no node to read; with
// more than one node, or the cluster's whole list, every node would get this host's
// evidence; not elevated, the sweep could not read HNS or the services' settings.
func localOnly(def transport.Kind, overrides []engine.Override, goos string, elevated func() error) error {
	uses, n := def == transport.Local, 0
	for _, o := range overrides {
		if o.Kind == transport.Local {
			uses = true
			n++
		}
	}
	switch {
	case !uses:
		return nil
	case goos != "windows":
		return usageErr("--transport local reads the machine it runs on, which must be the Windows node, and this is %s: "+
			"run wintroubleshoot.exe on the node (RDP, a HostProcess pod), or reach it with --transport winrm, ssh or hostprocess", goos)
	case n > 1 || (def == transport.Local && len(overrides) != 1):
		return usageErr("--transport local reads only the node it runs on: name that one node, --node NAME=local://localhost " +
			"(else every node would be judged on this host's evidence)")
	}
	return elevated()
}
