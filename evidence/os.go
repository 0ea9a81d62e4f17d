package evidence

import (
	"errors"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Which kind of node a node folder holds decides which keys are collected for it and which
// probes judge it; the sweep, the engine and the probes all ask here.

// OS is the kind of node an evidence file belongs to.
type OS string

// The node kinds. A node whose folder has no os.json is Windows: all evidence collected
// before Linux workers were swept is Windows evidence.
const (
	Windows OS = "windows"
	Linux   OS = "linux"
)

// NodeOS is the kind of node a key's file comes from.
func (m Meta) NodeOS() OS {
	if m.OS == "" {
		return Windows
	}
	return m.OS
}

// NodeKeysOf are the node keys of one kind of node; snapshot as for NodeKeys.
func NodeKeysOf(os OS, snapshot bool) []Ref {
	var out []Ref
	for _, k := range NodeKeys(snapshot) {
		if k.Meta().NodeOS() == os {
			out = append(out, k)
		}
	}
	return out
}

// NodeOS is the kind of node a node folder holds. os.json, which only the Linux sweep
// writes, says Linux (unless its Kind says otherwise); a node without one is Windows, as
// all evidence collected before Linux workers were swept is, except that a node the
// cluster lists as Linux stays Linux when its sweep failed before os.json was written
// (nodes/<node>/sweep.err alone), so Windows probes do not judge it from cluster files.
func NodeOS(ev Evidence, node string) OS {
	o, err := Get(ev, node, LinuxOS)
	var miss *MissingError
	switch {
	case err == nil && o.Kind == string(Windows):
		return Windows
	case err == nil || !errors.As(err, &miss) || miss.Why != "":
		return Linux // there, even if undecodable or recorded as failed
	}
	if !ev.Has(NodeFile(node, SweepErr)) {
		return Windows
	}
	nodes, err := Get(ev, "", ClusterNodes)
	if err != nil {
		return Windows
	}
	for _, n := range nodes {
		// A node from a pasted table does not show its labels: it cannot say Linux.
		if n.Name != node || decode.UnknownFields(n) != nil {
			continue
		}
		if !decode.IsWindows(n) && (n.Labels["kubernetes.io/os"] == "linux" || n.Status.NodeInfo.OperatingSystem == "linux") {
			return Linux
		}
		break
	}
	return Windows
}
