package main

import (
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// reachedMeta is the report's per-node line of how each node was reached, shown when the
// transport was picked per node (--transport auto): "hostprocess (winrm-https: ...)".
func (a *nodeAccess) reachedMeta(log *engine.ReachLog) string {
	if transport.Kind(a.transport) != transport.Auto {
		return ""
	}
	out := map[string]string{}
	for node, r := range log.All() {
		s := string(r.Kind)
		if r.Why != "" {
			s += " (" + r.Why + ")"
		}
		out[node] = s
	}
	return report.ReachedLine(out)
}
