package engine

import (
	"fmt"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Analyze judges evidence already collected (a folder assembled by hand, an unpacked
// bundle, a scenario) with the same probes a live run uses. nodes limits the judged
// nodes; empty means every nodes/<node>/ folder.
func Analyze(reg *probes.Registry, ev collectors.Evidence, nodes []string) ([]probes.Finding, error) {
	have := ev.Nodes()
	if len(nodes) == 0 {
		nodes = have
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no node evidence: expected folders nodes/<node-name>/ (see fixtures/scenarios/README.md)")
	}
	known := map[string]bool{}
	for _, n := range have {
		known[n] = true
	}
	var out []probes.Finding
	for _, n := range nodes {
		if !known[n] {
			out = append(out, probes.Finding{Probe: probes.ReachID, Node: n, Status: probes.Error,
				Summary: "no evidence for this node (no nodes/" + n + "/ folder)"})
			continue
		}
		out = append(out, reg.Run(n, ev)...)
	}
	Sort(out)
	return out, nil
}
