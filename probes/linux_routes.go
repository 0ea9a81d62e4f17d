package probes

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// linuxRoutes (LINUX-ROUTES): on a host-gw / L2Bridge cluster a Linux worker needs a
// route to every Windows node's podCIDR via that node's IP, the way
// kubernetes-the-hard-way docs/11-pod-network-routes.md adds one per peer (`ip route add
// ${NODE_1_SUBNET} via ${NODE_1_IP}`) and microsoft/SDN Kubernetes/linux/generate-routes.sh
// adds the Windows node's. Without it the Windows pods' replies arrive but nothing goes
// back: the Windows side looks healthy and the path is broken from the Linux side.
type linuxRoutes struct{}

// FixLinuxAddRoutes is the shell fix that adds the routes: `ip route add PREFIX via VIA`
// for each of Params.Routes ([{Prefix, Via}]) not already present.
const FixLinuxAddRoutes Action = "fix-linux-add-routes"

func (linuxRoutes) Spec() Spec {
	return Spec{ID: "LINUX-ROUTES", OS: evidence.Linux, Title: "routes from a Linux worker to the Windows nodes' pod CIDRs", FM: []string{"FM-07"},
		Reads: []evidence.Ref{evidence.LinuxRoutes, evidence.LinuxLinks, evidence.LinuxCNI, evidence.ClusterNodes}}
}

// winPeer is a Windows node this Linux worker must reach pods on.
type winPeer struct{ name, ip, podCIDR string }

func windowsPeers(nodes []corev1.Node, self string) []winPeer {
	var out []winPeer
	for _, n := range nodes {
		ip := decode.NodeAddress(n, "InternalIP")
		if n.Name == self || !decode.IsWindows(n) || n.Spec.PodCIDR == "" || ip == "" {
			continue
		}
		out = append(out, winPeer{n.Name, ip, n.Spec.PodCIDR})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// routeTo is the route the kernel would pick for a whole prefix: the most specific route
// covering it, other than the default route (which only a cloud router behind it could
// make right, and that is not evidence on the node).
func routeTo(routes []decode.IPRoute, want netip.Prefix) (decode.IPRoute, bool) {
	best, bits := decode.IPRoute{}, -1
	for _, r := range routes {
		p, ok := r.Prefix()
		if !ok || p.Bits() == 0 || p.Bits() > want.Bits() || !p.Contains(want.Addr()) {
			continue
		}
		if p.Bits() > bits {
			best, bits = r, p.Bits()
		}
	}
	return best, bits >= 0
}

// routeProblem says what is wrong with the path to a peer's pods, "" when the route is
// right; missing is true when there is no usable route at all (the fix adds one).
func routeProblem(routes []decode.IPRoute, p winPeer) (problem string, missing bool) {
	want, ok := prefix(p.podCIDR)
	if !ok {
		return fmt.Sprintf("%s: podCIDR %q is not a CIDR", p.name, p.podCIDR), false
	}
	r, found := routeTo(routes, want)
	switch {
	case !found:
		return fmt.Sprintf("%s (%s): no route to its pods, expected `%s via %s`", p.name, p.podCIDR, p.podCIDR, p.ip), true
	case !r.Forwards():
		kind := r.Type
		if kind == "" {
			kind = "linkdown"
		}
		return fmt.Sprintf("%s (%s): the route %s is %s", p.name, p.podCIDR, r.Dst, kind), false
	case r.Gateway != p.ip:
		via := r.Gateway
		if via == "" {
			via = "dev " + r.Dev + " (no gateway)"
		}
		return fmt.Sprintf("%s (%s): route %s goes via %s, expected via %s", p.name, p.podCIDR, r.Dst, via, p.ip), false
	}
	return "", false
}

func (linuxRoutes) Check(c C) Finding {
	nodes, _, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	if links, ok := optional(c, evidence.LinuxLinks); ok {
		for _, l := range links {
			if l.Kind() == "vxlan" {
				return c.Skip(fmt.Sprintf("overlay network (VXLAN device %s): Windows pods are reached through the tunnel, not host routes (LINUX-VXLAN judges it)", l.IfName),
					c.Path(evidence.LinuxLinks))
			}
		}
	}
	if files, ok := optional(c, evidence.LinuxCNI); ok {
		for _, f := range files {
			if slices.Contains(f.Types, "calico") {
				// Calico routes IPAM blocks learnt over BGP (proto bird), not podCIDRs.
				return c.Skip("Calico: routes to other nodes' IPAM blocks come from its BGP peering, not static routes to podCIDRs", c.Path(evidence.LinuxCNI)).
					With("to check: calicoctl node status, and ip route | grep bird")
			}
		}
	}
	routes, routePath, bad := need(c, evidence.LinuxRoutes)
	if bad != nil {
		return *bad
	}
	cites := []string{routePath, evidence.PathNodes}
	peers := windowsPeers(nodes, c.node)
	if len(peers) == 0 {
		return c.Skip("no Windows node with a podCIDR and an InternalIP to route to", cites...)
	}
	var details []string
	var missing []winPeer
	for _, p := range peers {
		problem, absent := routeProblem(routes, p)
		if problem == "" {
			continue
		}
		details = append(details, problem)
		if absent {
			missing = append(missing, p)
		}
	}
	if len(details) == 0 {
		return c.Pass(fmt.Sprintf("routes to the pods of all %d Windows node(s)", len(peers)), cites...)
	}
	if linux, routed := linuxPeersRouted(routes, nodes, c.node); linux > 0 && routed == 0 && len(missing) == len(details) {
		// No host route to any peer at all: the nodes leave pod routing to the network
		// (a cloud route table, as kubernetes-the-hard-way on GCP did), which the node's
		// evidence cannot show.
		return c.Warn("no host route to any other node's pods: pod routing is left to the network", cites...).With(details...).
			With(fmt.Sprintf("none of the %d Linux peers' pod CIDRs has a host route either: check that the network (cloud route table, router) routes each Windows podCIDR to its node", linux))
	}
	names := make([]string, 0, len(missing))
	for _, m := range missing {
		names = append(names, m.name)
	}
	summary := "routes to Windows pods go the wrong way"
	if len(missing) > 0 {
		summary = "no route to the pods of " + strings.Join(names, ", ")
	}
	f := c.Fail(summary, cites...).With(details...).
		With("pods here cannot reach pods there, and replies from their pods to pods here are lost (the Windows side shows its own routes as fine)")
	if len(missing) > 0 {
		f.Fix = linuxRoutesFix(c.id, missing)
	}
	return f
}

// linuxPeersRouted counts the Linux peers with a podCIDR, and those this node has a
// host route to.
func linuxPeersRouted(routes []decode.IPRoute, nodes []corev1.Node, self string) (linux, routed int) {
	for _, n := range nodes {
		want, ok := prefix(n.Spec.PodCIDR)
		if n.Name == self || decode.IsWindows(n) || !ok {
			continue
		}
		linux++
		if _, found := routeTo(routes, want); found {
			routed++
		}
	}
	return linux, routed
}

// linuxRoutesFix adds one route per missing Windows podCIDR, via that node's IP.
func linuxRoutesFix(verify string, missing []winPeer) *Fix {
	var params []any
	var cmds []string
	for _, m := range missing {
		params = append(params, map[string]any{"Prefix": m.podCIDR, "Via": m.ip})
		cmds = append(cmds, fmt.Sprintf("ip route add %s via %s", m.podCIDR, m.ip))
	}
	return &Fix{
		ID: "add-linux-routes", Title: fmt.Sprintf("Add %d route(s) to Windows pod CIDRs", len(missing)), Kind: NodeScript,
		Action: FixLinuxAddRoutes, Params: map[string]any{"Routes": params}, Commands: cmds, Verify: verify,
		Precheck: "the routes are still missing",
		Notes: []string{
			"idempotent: a route that is already there is left alone",
			"not persistent: add the same route to the node's network configuration (netplan `routes:`, a systemd-networkd [Route]) so it survives a reboot",
			"kubernetes-the-hard-way docs/11-pod-network-routes.md adds these by hand; microsoft/SDN Kubernetes/linux/generate-routes.sh adds the Windows node's",
		},
	}
}
