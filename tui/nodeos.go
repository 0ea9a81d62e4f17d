package tui

import "encoding/json"

// learnOS reads the kind of a judged node from its os.json (only a Linux worker's sweep
// writes one), so a mixed fleet can show Linux and Windows nodes side by side.
func (m *Model) learnOS(n *node) {
	b, err := m.opts.Backend.Evidence(n.name, "nodes/"+n.name+"/os.json")
	n.os = "windows"
	var os struct{ Kind string }
	if err == nil && json.Unmarshal(b, &os) == nil && os.Kind == "linux" {
		n.os = "linux"
		m.store.mixed = true
	}
}

// osTag is the kind marker a Linux node's row shows before its note ("lnx 1✗") once a
// Linux node was judged; Windows rows, the tool's subject, show none, so names stay
// aligned and a Windows-only fleet looks as before.
func osTag(s *store, n *node) string {
	if s.mixed && n.os == "linux" {
		return "lnx "
	}
	return ""
}
