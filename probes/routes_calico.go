package probes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Calico's windows-bgp mode (CALICO_NETWORKING_BACKEND=windows-bgp; the conflist's mode
// "windows-bgp", cni-plugin/pkg/install/install_windows.go) routes other nodes' IPAM blocks
// through the Windows RRAS BGP router: calico-node's confd renders peerings.ps1 and
// blocks.ps1 (confd/windows-packaging/templates) and config-bgp.psm1 turns them into
// Add-BgpRouter, Add-BgpPeer and Add-BgpCustomRoute calls; node-service.ps1 restarts the
// RemoteAccess service after building the L2Bridge networks. The routes RRAS learns land
// in the IP routing table with Protocol Bgp. With the default node-to-node mesh, every
// other node is a peer (Mesh_<ip>) and the next hop of the blocks it advertises.

const calicoBGPToCheck = "to check: Get-Service RemoteAccess; Get-BgpPeer and Get-BgpRouteInformation (RemoteAccess module); Get-NetRoute -Protocol Bgp; calicoctl node status on a Linux node"

// calicoBGPMode says whether the Calico conflist asks for BGP routing: any mode but vxlan
// (Calico writes "windows-bgp"; older manual installs left the mode empty).
func calicoBGPMode(cni decode.CNIConfig) bool {
	return isCalico(cni) && !strings.EqualFold(cni.Mode, "vxlan")
}

type bgpPeer struct{ name, ip string }

func (c C) calicoBGPRoutes(nodes []corev1.Node, cni decode.CNIConfig) Finding {
	var cniPath string
	if _, ok := optional(c, evidence.CNIConfig); ok {
		cniPath = c.Path(evidence.CNIConfig)
	}
	mode := cni.Mode
	if mode == "" {
		mode = "BGP"
	}
	routes, routePath, bad := need(c, evidence.Routes)
	if bad != nil {
		return *bad
	}
	cites := []string{cniPath, routePath, evidence.PathNodes}
	var peers []bgpPeer
	for _, n := range nodes {
		if ip := decode.NodeAddress(n, "InternalIP"); n.Name != c.node && ip != "" {
			peers = append(peers, bgpPeer{n.Name, ip})
		}
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].name < peers[j].name })
	if !hasProtocol(routes) {
		return c.bgpWithoutProtocol(mode, peers, routes, cites)
	}
	if len(peers) == 0 {
		return c.Skip("Calico "+mode+": no other node with an InternalIP to peer with", cites...)
	}
	if svcs, ok := optional(c, evidence.WindowsServices); ok {
		if s, found := decode.FindService(svcs, "RemoteAccess"); found && !strings.EqualFold(s.Status, "Running") {
			// Automatic and stopped: it failed or was stopped; anything else will not come
			// back at the next boot either (svc.go's start and autostart fixes).
			fix := autostartFix(c.id, []string{s.Name})
			if s.StartType == "Automatic" {
				fix = startFix(c.id, []string{s.Name})
			}
			return c.Fail(fmt.Sprintf("the RemoteAccess (RRAS) service is %s: Calico %s has no BGP router to peer with its %d peer(s), so no routes to their pods' blocks",
				s.Status, mode, len(peers)), append(cites, c.Path(evidence.WindowsServices))...).
				With("pods here cannot reach pods on other nodes, nor they these; Calico's node-service.ps1 restarts RemoteAccess only when calico-node starts").
				With(fmt.Sprintf("expected: Running; actual: %s, StartType %s", s.Status, s.StartType),
					"after starting it, Get-BgpPeer should show the peers Connected (a RemoteAccess never configured needs Install-RemoteAccess -VpnType RoutingOnly first)").
				WithFix(fix)
		}
	}
	via := map[string][]string{}
	bgp := 0
	for _, r := range routes {
		if r.LearnedByBGP() {
			bgp++
			via[string(r.NextHop)] = append(via[string(r.NextHop)], string(r.DestinationPrefix))
		}
	}
	if bgp == 0 {
		return c.Fail(fmt.Sprintf("no BGP-learned route (Protocol Bgp) although Calico %s peers with %d node(s): pods here cannot reach other nodes' pods", mode, len(peers)), cites...).
			With(calicoBGPToCheck)
	}
	var found, missing []string
	for _, p := range peers {
		if blocks := via[p.ip]; len(blocks) > 0 {
			sort.Strings(blocks)
			found = append(found, fmt.Sprintf("%s (%s): %s", p.name, p.ip, strings.Join(blocks, ", ")))
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s)", p.name, p.ip))
		}
	}
	if len(missing) == 0 {
		return c.Pass(fmt.Sprintf("BGP-learned routes to the IPAM blocks of all %d peer node(s)", len(peers)), cites...).With(found...)
	}
	// A peer whose pods are all hostNetwork has no block to advertise, and peering through
	// a ToR or route reflector outside the cluster puts that router as the next hop: not
	// proof of a break, so a warning naming what to check.
	return c.Warn(fmt.Sprintf("%d BGP-learned route(s), none via %s", bgp, strings.Join(missing, ", ")), cites...).
		With(found...).
		With("a node with only hostNetwork pods has no IPAM block to advertise, and a ToR or route-reflector peering makes that router the next hop", calicoBGPToCheck)
}

// bgpWithoutProtocol judges routes collected without their Protocol column: which routes
// BGP learned is unknown, but with Calico's node-to-node mesh every peer is the next hop
// of the routes to its blocks, so no route at all via any peer decides a failure whatever
// the protocol; routes via peers may be BGP's or static ones, which this cannot tell.
func (c C) bgpWithoutProtocol(mode string, peers []bgpPeer, routes []decode.Route, cites []string) Finding {
	routePath := c.Path(evidence.Routes)
	if len(peers) == 0 {
		return c.Skip("Calico "+mode+": no other node with an InternalIP to peer with", cites...)
	}
	viaPeer := 0
	for _, r := range routes {
		for _, p := range peers {
			if string(r.NextHop) == p.ip {
				viaPeer++
			}
		}
	}
	if viaPeer == 0 {
		var names []string
		for _, p := range peers {
			names = append(names, p.name+" ("+p.ip+")")
		}
		return c.Fail(fmt.Sprintf("no route via any of Calico %s's %d peer node(s): pods here cannot reach other nodes' pods", mode, len(peers)), cites...).
			With("peers: "+strings.Join(names, ", "),
				routePath+" has no Protocol column, but no route of any protocol goes via a peer: the BGP router learned nothing", calicoBGPToCheck)
	}
	return c.Skip(fmt.Sprintf("Calico %s: %d route(s) go via peer nodes, and %s has no Protocol column (collected before it was added) to tell BGP-learned routes from static ones",
		mode, viaPeer, routePath), cites...).With(calicoBGPToCheck)
}

// hasProtocol says whether the routes were collected with their Protocol column.
func hasProtocol(routes []decode.Route) bool {
	for _, r := range routes {
		if r.Protocol != "" {
			return true
		}
	}
	return false
}
