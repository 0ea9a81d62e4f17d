package probes

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// A Linux worker among Windows nodes: which kind a node folder holds, and what a Windows
// node's probes read of its Linux peers.

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
	nodes = shownNodes(nodes)
	if err != nil {
		return evidence.Windows
	}
	if n, err := findNode(ev, nodes, node); err == nil && !decode.IsWindows(n) &&
		(n.Labels["kubernetes.io/os"] == "linux" || n.Status.NodeInfo.OperatingSystem == "linux") {
		return evidence.Linux
	}
	return evidence.Windows
}

// routesBack is NET-ROUTES' reverse path on a Windows node: each Linux peer whose routes
// were collected (nodes/<peer>/linux-ip-route.json) must route this node's podCIDR via
// this node's IP, or traffic from here reaches its pods and the replies never come back.
// It returns one line per peer that does not, and the peers' files it read. Peers
// without Linux evidence are not judged: the API alone cannot show a node's routes.
func (c C) routesBack(self corev1.Node, nodes []corev1.Node) (problems, cites []string) {
	ip := decode.NodeAddress(self, "InternalIP")
	if self.Spec.PodCIDR == "" || ip == "" {
		return nil, nil
	}
	me := winPeer{self.Name, ip, self.Spec.PodCIDR}
	for _, n := range nodes {
		if n.Name == self.Name || decode.IsWindows(n) {
			continue
		}
		routes, err := evidence.Get(c.ev, n.Name, evidence.LinuxRoutes())
		p := evidence.LinuxRoutes().Path(n.Name)
		c.swallow(p, err)
		if err != nil {
			continue
		}
		cites = append(cites, p)
		switch problem, absent := routeProblem(routes, me); {
		case absent:
			problems = append(problems, fmt.Sprintf("%s has no route back to this node's pods (expected `%s via %s` there, LINUX-ROUTES): replies from its pods are lost",
				n.Name, me.podCIDR, me.ip))
		case problem != "":
			problems = append(problems, fmt.Sprintf("%s, the way back: %s", n.Name, problem))
		}
	}
	return problems, cites
}
