package probes

import (
	"fmt"
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// podCIDR (NODE-PODCIDR): the node has a podCIDR, with no host bits set, that no
// other node has too.
type podCIDR struct{}

func (podCIDR) Spec() Spec {
	return Spec{ID: "NODE-PODCIDR", Layouts: allLayouts(), Title: "node has its own podCIDR, or its layout's own pod subnet", FM: []string{"FM-01"},
		Reads: []evidence.Ref{evidence.ClusterNodes, evidence.ClusterConfig, evidence.ClusterServices, evidence.CNIConfig,
			evidence.Processes, evidence.WindowsServices, evidence.KubeProxyLog, evidence.HNSNetworks, evidence.Pods}}
}

func (podCIDR) Check(c C) Finding {
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	src := evidence.PathNodes
	cidr := self.Spec.PodCIDR
	if cidr == "" {
		if d, ok := c.subnetByDesign(nodes, self); ok {
			if !d.decided {
				return c.Skip("no podCIDR, by design of this cluster's CNI", src).With(d.why)
			}
			f := c.Pass("no podCIDR, by design of the node's CNI: it has its own pod subnet source", src, d.source).With(d.why)
			if d.subnet != "" {
				f = f.With("the node's pod subnet: " + d.subnet)
			}
			return f
		}
		return c.Fail("node spec.podCIDR is empty", src).
			With("cause: kube-controller-manager runs without --allocate-node-cidrs=true (typical of hand-built clusters), so the node IPAM controller never assigns one",
				"effect: the Windows start scripts wait forever for the HNS network, and routes to this node cannot be added").
			WithFix(podCIDRFix(c.id, c.node, nodes))
	}
	pfx, err := netip.ParsePrefix(cidr)
	switch {
	case err != nil:
		return c.Fail(fmt.Sprintf("podCIDR %q is not a CIDR", cidr), src)
	case pfx.Masked() != pfx:
		return c.Warn(fmt.Sprintf("podCIDR %s has host bits set (network is %s)", cidr, pfx.Masked()), src).
			With("set by hand (kubectl edit)? a mis-set Windows podCIDR has crashed kube-controller-manager")
	}
	if other := overlapping(nodes, c.node, pfx); other != "" {
		return c.Fail(fmt.Sprintf("podCIDR %s overlaps node %s", cidr, other), src).
			With("two nodes handing out the same pod IPs breaks routing for both")
	}
	if outside := c.podCIDRInCluster(); outside != nil {
		return *outside
	}
	return c.Pass("podCIDR "+cidr, src)
}

func overlapping(nodes []corev1.Node, self string, p netip.Prefix) string {
	for _, n := range nodes {
		if n.Name == self || n.Spec.PodCIDR == "" {
			continue
		}
		if q, ok := prefix(n.Spec.PodCIDR); ok && q.Overlaps(p.Masked()) {
			return n.Name
		}
	}
	return ""
}

// podCIDRFix proposes the first /24 next to the other nodes' podCIDRs that none uses.
func podCIDRFix(verify, node string, nodes []corev1.Node) *Fix {
	fix := &Fix{
		ID: "patch-podcidr", Title: "Set the node's podCIDR through the API", Kind: KubeAPI, Action: PatchPodCIDR,
		Verify:   verify,
		Precheck: "spec.podCIDR still empty (the API only allows setting it once)",
		Notes: []string{
			"lasting fix: add --allocate-node-cidrs=true --cluster-cidr=<cluster CIDR> to kube-controller-manager and restart it; the node IPAM controller then fills empty podCIDRs",
			"make sure the chosen CIDR is not already routed elsewhere (cloud route tables, other nodes)",
		},
	}
	cidr := freeCIDR(node, nodes)
	if cidr == "" {
		fix.Kind = Manual
		fix.Commands = []string{fmt.Sprintf(`kubectl patch node %s --type merge -p '{"spec":{"podCIDR":"<CIDR>","podCIDRs":["<CIDR>"]}}'`, node)}
		fix.Notes = append(fix.Notes, "no other node has a podCIDR to infer the cluster CIDR from: choose one by hand")
		return fix
	}
	fix.Params = map[string]any{"podCIDR": cidr}
	fix.Commands = []string{fmt.Sprintf(`kubectl patch node %s --type merge -p '{"spec":{"podCIDR":"%s","podCIDRs":["%s"]}}'`, node, cidr, cidr)}
	return fix
}

func freeCIDR(self string, nodes []corev1.Node) string {
	var used []netip.Prefix
	for _, n := range nodes {
		if p, ok := prefix(n.Spec.PodCIDR); ok && n.Name != self {
			used = append(used, p)
		}
	}
	if len(used) == 0 {
		return ""
	}
	sort.Slice(used, func(i, j int) bool { return used[i].Addr().Less(used[j].Addr()) })
	base := used[0]
	bits := base.Bits()
	if bits < 16 || bits > 28 || !base.Addr().Is4() {
		return ""
	}
	// Walk forward from the lowest podCIDR in steps of its size, inside its /16.
	parent, _ := base.Addr().Prefix(16)
	step := uint32(1) << (32 - bits)
	a := base.Addr().As4()
	start := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	for i := uint32(0); i < 1<<(bits-16); i++ {
		v := start + i*step
		cand := netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), bits)
		if !parent.Contains(cand.Addr()) {
			break
		}
		free := true
		for _, u := range used {
			if u.Overlaps(cand) {
				free = false
				break
			}
		}
		if free {
			return cand.String()
		}
	}
	return ""
}
