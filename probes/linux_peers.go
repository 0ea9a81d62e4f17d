package probes

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// A Linux worker among Windows nodes: which kind a node folder holds, and what a Windows
// node's probes read of its Linux peers.

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
		routes, err := evidence.Get(c.ev, n.Name, evidence.LinuxRoutes)
		p := evidence.LinuxRoutes.Path(n.Name)
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
