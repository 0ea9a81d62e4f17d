package tui

import (
	"encoding/json"

	"github.com/charmbracelet/x/ansi"
)

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

// osTag is the node row's kind column, "lnx " or "win ", once the fleet is known to mix
// kinds (a Linux node was judged); empty otherwise, so a Windows fleet looks as before.
func osTag(s *store, n *node, st styles) string {
	if !s.mixed {
		return ""
	}
	tag := "    " // the cluster-wide row, or a node not judged yet
	switch {
	case n.name == "":
	case n.os == "linux":
		tag = "lnx "
	case n.os == "windows":
		tag = "win "
	}
	return st.dim.Render(tag)
}

// osTagWidth is the width osTag takes.
func osTagWidth(tag string) int { return ansi.StringWidth(tag) }
