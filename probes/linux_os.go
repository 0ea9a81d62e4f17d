package probes

import (
	"errors"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// NodeOS is the kind of node a node folder holds. os.json, which only the Linux sweep
// writes, says Linux (unless its Kind says otherwise); a node without one is Windows, as
// all evidence collected before Linux workers were swept is, except that a node the
// cluster lists as Linux stays Linux when its sweep failed before os.json was written
// (nodes/<node>/sweep.err alone), so Windows probes do not judge it from cluster files.
func NodeOS(ev evidence.Evidence, node string) evidence.OS {
	o, err := evidence.Get(ev, node, evidence.LinuxOS())
	var miss *evidence.MissingError
	switch {
	case err == nil && o.Kind == string(evidence.Windows):
		return evidence.Windows
	case err == nil || !errors.As(err, &miss) || miss.Why != "":
		return evidence.Linux // there, even if undecodable or recorded as failed
	}
	if !ev.Has(evidence.NodeFile(node, evidence.SweepErr)) {
		return evidence.Windows
	}
	nodes, err := evidence.Get(ev, "", evidence.Nodes())
	if err != nil {
		return evidence.Windows
	}
	if n, err := decode.FindNode(nodes, node); err == nil && !decode.IsWindows(n) &&
		(n.Labels["kubernetes.io/os"] == "linux" || n.Status.NodeInfo.OperatingSystem == "linux") {
		return evidence.Linux
	}
	return evidence.Windows
}
