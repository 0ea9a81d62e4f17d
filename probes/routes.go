package probes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// routes (NET-ROUTES): on L2Bridge (host-gw) nodes, a route to every other node's
// podCIDR via that node's InternalIP. AddRoutes.ps1 is one-shot, so nodes added later are
// missing until someone adds them.
type routes struct{}

func (routes) Spec() Spec {
	return Spec{ID: "NET-ROUTES", Layouts: []string{LayoutHardWay, LayoutAntrea, LayoutCalicoBGP}, Title: "routes to other nodes' pod CIDRs", FM: []string{"FM-07"},
		Reads: []evidence.Ref{evidence.Routes, evidence.HNSNetworks, evidence.IPAddresses, evidence.CNIConfig, evidence.Processes, evidence.WindowsServices, evidence.KubeProxyLog, evidence.Pods, evidence.ClusterNodes,
			evidence.LinuxRoutes}} // Linux peers' routes: the reverse path (linux_reverse.go)
}

type wantRoute struct {
	prefix, nextHop, peer string
	windows               bool
}

// addRoutesHop is the next hop AddRoutes.ps1 writes for a peer's podCIDR: the CIDR's
// first three octets and .1 (Linux peer) or .2 (Windows peer).
func addRoutesHop(cidr string, windows bool) string {
	i := strings.LastIndex(cidr, ".")
	if i < 0 {
		return ""
	}
	if windows {
		return cidr[:i] + ".2"
	}
	return cidr[:i] + ".1"
}

func (routes) Check(c C) Finding {
	node := c.node
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	if f, decided := c.routesByLayout(nodes, self); decided {
		return f
	}
	routes, routePath, bad := need(c, evidence.Routes)
	if bad != nil {
		return *bad
	}
	var want []wantRoute
	for _, n := range nodes {
		ip := decode.NodeAddress(n, "InternalIP")
		if n.Name == node || n.Spec.PodCIDR == "" || ip == "" {
			continue
		}
		want = append(want, wantRoute{n.Spec.PodCIDR, ip, n.Name, decode.IsWindows(n)})
	}
	sort.Slice(want, func(i, j int) bool { return want[i].prefix < want[j].prefix })
	cites := []string{routePath, evidence.PathNodes}
	if len(want) == 0 {
		return c.Skip("no other node has a podCIDR and an InternalIP to route to", cites...)
	}
	missing, details, viaAddRoutes := compareRoutes(routes, want)
	// The reverse path, where Linux peers' routes were collected (linux_reverse.go).
	back, backCites := c.routesBack(self, nodes)
	cites = append(cites, backCites...)
	if len(missing) == 0 && len(details) == 0 && len(back) == 0 {
		f := c.Pass(fmt.Sprintf("routes to all %d peer pod CIDRs", len(want)), cites...)
		if len(backCites) > 0 {
			f = f.With(fmt.Sprintf("and back from %d Linux peer(s) whose routes were collected", len(backCites)))
		}
		if viaAddRoutes > 0 {
			f = f.With(fmt.Sprintf("%d of them via the peer's pod gateway (<cidr>.1, .2 for SDN Windows peers), as SDN AddRoutes.ps1 and Antrea's route client (encap mode, via antrea-gw0) write them", viaAddRoutes))
		}
		return f
	}
	if len(missing) == 0 && len(back) > 0 {
		return c.Fail("peers have no usable route back to this node's pods", cites...).With(back...).With(details...)
	}
	if len(missing) == 0 {
		return c.Warn("routes to peer pod CIDRs use unexpected next hops", cites...).With(details...)
	}
	prefixes := make([]string, len(missing))
	for i, m := range missing {
		prefixes[i] = m.prefix
	}
	f := c.Fail(fmt.Sprintf("missing routes to %s", strings.Join(prefixes, ", "))).With(details...).With(back...)
	f = f.With("pods here cannot reach pods on those nodes; also add the reverse routes on them and in the cloud route table")
	if c.podNetworkMissing() {
		f = f.With("add them once the HNS pod network exists (HNS-NETWORK): routes added now land on an interface the network's creation replaces")
	} else {
		f.Fix = routesFix(c, c.id, self.Status.Addresses, missing)
	}
	f = f.Citing(cites...).Citing(c.Path(evidence.IPAddresses))
	return f
}

func hopsTo(routes []decode.Route, prefix string) []string {
	var out []string
	for _, r := range routes {
		if string(r.DestinationPrefix) == prefix {
			out = append(out, string(r.NextHop))
		}
	}
	return out
}

func containsExact(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// routesFix adds one New-NetRoute per missing prefix on the interface holding the node's
// InternalIP (the management vNIC, usually "vEthernet (Ethernet)").
func routesFix(c C, verify string, addrs []corev1.NodeAddress, missing []wantRoute) *Fix {
	alias := "vEthernet (Ethernet)"
	ips, _ := optional(c, evidence.IPAddresses)
	for _, a := range addrs {
		if a.Type != "InternalIP" {
			continue
		}
		for _, ip := range ips {
			if string(ip.IPAddress) == a.Address && ip.InterfaceAlias != "" {
				alias = string(ip.InterfaceAlias)
			}
		}
	}
	var params []any
	var cmds []string
	for _, m := range missing {
		params = append(params, map[string]any{"Prefix": m.prefix, "NextHop": m.nextHop, "InterfaceAlias": alias})
		cmds = append(cmds, fmt.Sprintf("New-NetRoute -DestinationPrefix %s -NextHop %s -InterfaceAlias %s -RouteMetric 300",
			m.prefix, m.nextHop, psQuote(alias)))
	}
	return &Fix{
		ID: "add-routes", Title: fmt.Sprintf("Add %d missing route(s) to peer pod CIDRs", len(missing)), Kind: NodeScript,
		Action: "fix-add-routes", Params: map[string]any{"Routes": params}, Commands: cmds, Verify: verify,
		Notes:    []string{"idempotent: a route that already exists is skipped", "SDN nodes: C:\\k\\AddRoutes.ps1 -masterIp <ip> does the same"},
		Precheck: "the routes are still missing",
	}
}

// podNetworkMissing says whether the node's expected HNS network is known not to exist.
func (c C) podNetworkMissing() bool {
	plan, ok := c.plan()
	if !ok {
		return false
	}
	nets, ok := optional(c, evidence.HNSNetworks)
	if !ok {
		return false
	}
	_, found := decode.FindNetwork(nets, plan.name)
	return !found
}

// routesByLayout decides NET-ROUTES where the layout needs no host routes between nodes
// (overlay, cloud-routed CNIs, Calico VXLAN) or routes its own way (Calico BGP).
func (c C) routesByLayout(nodes []corev1.Node, self corev1.Node) (Finding, bool) {
	if _, ok := optional(c, evidence.CNIConfig); !ok && strings.HasPrefix(self.Spec.ProviderID, "azure://") {
		// AKS runs Windows nodes on Azure CNI (VNet or Overlay) only, and Azure's network
		// routes their pods: a bundle without the CNI config (collectlogs) still tells AKS
		// by the node's providerID.
		return c.Skip("AKS node (providerID azure://): Azure CNI's pod addresses are routed by Azure's network, not with routes on the node", evidence.PathNodes).
			With("to check the CNI: Get-Content C:\\k\\azurecni\\netconf\\10-azure.conflist"), true
	}
	if plan, ok := c.plan(); ok && plan.kind == "overlay" {
		return c.Skip("overlay (VXLAN) network: no host routes needed between nodes", plan.source), true
	}
	if cni, ok := optional(c, evidence.CNIConfig); ok && (isAzureCNI(cni) || isVPCCNI(cni)) {
		// Azure CNI gives pods VNet addresses the VNet routes; Azure CNI Overlay's pod
		// CIDRs are routed by Azure's network between the nodes ("Pod and node traffic
		// within the cluster use an Overlay network", learn.microsoft.com AKS
		// concepts-network-azure-cni-overlay); the VPC CNI's pods have ENI addresses of
		// the VPC. None needs host routes to other nodes' pods.
		return c.Skip("the cloud network routes this CNI's pod addresses ("+cni.Type+"): no host routes to other nodes' pods are needed", c.Path(evidence.CNIConfig)).
			With("Azure CNI (VNet or Overlay) and the Amazon VPC CNI route pod traffic in the VNet or VPC, not with routes on the node"), true
	}
	if cni, ok := optional(c, evidence.CNIConfig); ok && calicoBGPMode(cni) {
		// Calico routes IPAM blocks, not podCIDRs: with BGP the RemoteAccess router learns
		// them from its peers (routes_calico.go).
		return c.calicoBGPRoutes(nodes, cni), true
	}
	if src, calico := c.calicoNode(); calico {
		if nets, ok := optional(c, evidence.HNSNetworks); ok {
			// No conflist, but Calico's network is L2Bridge: windows-bgp builds it so
			// (node-service.ps1), VXLAN builds an Overlay one.
			if n, found := decode.FindNetwork(nets, "Calico"); found && strings.EqualFold(string(n.Type), "l2bridge") {
				return c.calicoBGPRoutes(nodes, decode.CNIConfig{Type: "calico"}).Citing(c.Path(evidence.HNSNetworks)), true
			}
		}
		// rke2's Calico is VXLAN (pkg/windows/calico.go OverlayEncap "vxlan"): peers'
		// blocks are RemoteSubnetRoute policies on the Calico network, not host routes.
		return c.Skip("Calico network without a CNI config in the evidence (named by kube-proxy --network-name=Calico or the HNS network Calico): Calico VXLAN carries other nodes' blocks as RemoteSubnetRoute policies, not host routes", src).
			With("to check: (Get-HnsNetwork | ? Name -eq Calico).Policies, calicoctl ipam show --show-blocks"), true
	}
	return Finding{}, false
}

// compareRoutes holds the routes against the peers' pod CIDRs: the ones missing, a line
// for each that is missing or goes elsewhere, and how many go via AddRoutes.ps1's hop.
func compareRoutes(routes []decode.Route, want []wantRoute) ([]wantRoute, []string, int) {
	var missing []wantRoute
	var details []string
	viaAddRoutes := 0
	for _, w := range want {
		hops := hopsTo(routes, w.prefix)
		switch {
		case containsExact(hops, w.nextHop):
		case containsExact(hops, addRoutesHop(w.prefix, w.windows)):
			// microsoft/SDN Kubernetes/windows/AddRoutes.ps1 routes a peer's podCIDR via
			// the peer's pod gateway (<cidr>.1 on Linux, .2 on Windows), on vEthernet
			// (cbr0) at metric 250 and on the management vNIC at metric 300.
			viaAddRoutes++
		case len(hops) > 0:
			details = append(details, fmt.Sprintf("%s (%s): route exists via %s, expected via %s", w.prefix, w.peer, strings.Join(hops, ","), w.nextHop))
		default:
			missing = append(missing, w)
			details = append(details, fmt.Sprintf("%s (%s): no route, expected via %s", w.prefix, w.peer, w.nextHop))
		}
	}
	return missing, details, viaAddRoutes
}
