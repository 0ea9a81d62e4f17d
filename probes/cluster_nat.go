package probes

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// broadestPlausibleService is the widest range accepted as "the real service range" when
// the service CIDR is only inferred (a lower bound): kubeadm's default is a /12.
const broadestPlausibleService = 12

// judgeExceptions checks the OutBoundNAT ExceptionList: traffic to a listed range leaves
// the pod unNATed. So the cluster CIDR, the service CIDR and the node subnet must be
// listed, and nothing beyond them: a pod reaching an external address inside a listed
// range gets no SNAT and its replies are lost (FM-10).
func (c C) judgeExceptions(v *verdict, cni decode.CNIConfig, plan addressPlan) {
	if len(cni.ExceptionList) == 0 {
		v.add(Pass, "", "the CNI config has no OutBoundNAT ExceptionList (this plugin does not use one): NAT exceptions not judged")
		return
	}
	mgmt := c.mgmtSubnet()
	if mgmt.known() {
		v.cites = append(v.cites, evidence.PathNodes)
		if !mgmt.inferred {
			v.cites = append(v.cites, c.Path(evidence.IPAddresses))
		}
	}
	entries := parseExceptions(v, cni.ExceptionList)
	actual := "actual: ExceptionList [" + strings.Join(cni.ExceptionList, ", ") + "]"

	required := []natNeed{
		{"cluster CIDR", plan.cluster, Fail},
		{"service CIDR", plan.service, Fail},
		{"node subnet", mgmt, Warn},
	}
	// The node subnet is needed on L2Bridge only: there pods and nodes share the link, and
	// microsoft/SDN Kubernetes/flannel/l2bridge/cni/config/cni.conf and
	// Kubernetes/windows/cni/config/l2bridge.conf list it. Overlay configs list the cluster
	// and service ranges alone (SDN Kubernetes/flannel/overlay/cni/config/cni.conf;
	// sig-windows-tools hostprocess/flannel/flanneld/start.ps1 writes Exceptions =
	// service subnet, pod subnet), so its absence there is no problem.
	clusterR, serviceR := required[0].r, required[1].r
	kind := configKind(cni)
	if kind == "overlay" {
		required = required[:2]
	}
	// Calico's conflist lists only the service CIDR (cni-plugin/pkg/install/
	// install_windows.go, "ExceptionList": [__KUBERNETES_SERVICE_CIDRS__]): the plugin
	// itself keeps traffic to its IP pools unNATed when the pool has natOutgoing.
	// WMCO writes the hybrid overlay's config the same way (pkg/nodeconfig/payload/
	// payload.go network-conf.ps1: "exceptionList": ["SERVICE_NETWORK_CIDR"]): OVN's
	// hybrid overlay carries pod-to-pod traffic without NAT itself.
	if isCalico(cni) || c.hybridOverlay() {
		required = required[1:2]
	}
	// Azure CNI (azure-vnet) gives pods addresses of the node's VNet subnet, and AgentBaker
	// (staging/cse/windows/azurecnifunc.ps1 Set-AzureCNIConfig) lists the cluster CIDR (that
	// subnet) and the VNet's address spaces, never the service CIDR: Service VIPs are
	// rewritten to pod IPs by kube-proxy's load balancers before OutBoundNAT applies, and
	// the whole VNet is reachable without NAT by design.
	// With Azure CNI Overlay Set-AzureCNIConfig lists the cluster CIDR alone
	// ($IsAzureCNIOverlayEnabled skips the VNet CIDRs): pods leave the node SNATed to its
	// address for anything outside the overlay pod CIDR. No entry then holds the node.
	azure := isAzureCNI(cni)
	if azure {
		required = c.azureNeeds(entries, clusterR, mgmt)
	}
	before := len(v.problems)
	var unknown []string
	for _, req := range required {
		if !req.r.known() {
			unknown = append(unknown, req.what)
			continue
		}
		if coveredBy(entries, req.r.prefix) {
			continue
		}
		effect := "pod traffic to it is SNATed to the node's IP instead of keeping the pod IP"
		if req.what == "node subnet" {
			effect = "traffic from pods to nodes is SNATed; the Kubernetes docs list the node subnet in the ExceptionList"
		}
		v.add(req.bad, fmt.Sprintf("ExceptionList lacks the %s %s", req.what, req.r.prefix),
			fmt.Sprintf("expected: an ExceptionList entry covering the %s %s", req.what, req.r.describe()), actual, effect)
	}
	if len(unknown) > 0 {
		v.details = append(v.details, "not known, so not required: "+strings.Join(unknown, ", ")+" (write cluster/cluster-config.json to state them)")
	}

	for _, e := range entries {
		c.judgeEntry(v, e, clusterR, serviceR, mgmt, actual, azure)
	}
	if len(v.problems) == before && len(unknown) < len(required) {
		if azure {
			v.details = append(v.details, "Azure CNI: the service CIDR need not be listed, and entries wider than the node subnet are the VNet's address spaces (AgentBaker Set-AzureCNIConfig)")
		}
		if kind == "overlay" {
			v.details = append(v.details, "overlay network: the node subnet need not be listed (the official overlay configs list only the cluster and service ranges)")
		}
		v.add(Pass, "", "ExceptionList ["+strings.Join(cni.ExceptionList, ", ")+"] covers the known cluster ranges and nothing else")
	}
}

// judgeEntry flags one ExceptionList entry that stands for no cluster range, or that is
// broader than the range it stands for.
func (c C) judgeEntry(v *verdict, e netip.Prefix, cluster, service, mgmt addrRange, actual string, vnet bool) {
	explained := false
	var broader []string
	for _, r := range []struct {
		what string
		r    addrRange
	}{{"cluster CIDR", cluster}, {"service CIDR", service}, {"node subnet", mgmt}} {
		if !r.r.known() {
			continue
		}
		switch {
		case clusterconfig.Covers(r.r.prefix, e):
			explained = true
		case clusterconfig.Covers(e, r.r.prefix):
			explained = true
			// An inferred range is a lower bound: an entry up to a /12 may be the real one.
			// On Azure CNI an entry around the node subnet is the VNet's address space.
			if (!r.r.inferred || e.Bits() < broadestPlausibleService) && !(vnet && r.what == "node subnet") {
				broader = append(broader, fmt.Sprintf("the %s %s", r.what, r.r.prefix))
			}
		}
	}
	if e.String() == sdnServiceTrap && service.known() && !clusterconfig.Covers(e, service.prefix) {
		v.add(Fail, fmt.Sprintf("ExceptionList holds %s, the SDN default, not the service CIDR %s", e, service.prefix),
			fmt.Sprintf("trap: the SDN start-kubelet.ps1 hard-codes $serviceCIDR = %q and writes it into the CNI config (ExceptionList and the ROUTE policy)", sdnServiceTrap),
			fmt.Sprintf("expected: the service CIDR %s", service.describe()), actual,
			"pods' traffic to any 11.x address (outside the cluster) is not SNATed and gets no reply")
		return
	}
	switch {
	case !explained && cluster.known() && mgmt.known():
		// Only a known cluster CIDR makes "none of them" sound: an unknown one (a
		// pasted node table shows no podCIDRs to infer it from) may be this entry.
		v.add(Warn, fmt.Sprintf("ExceptionList entry %s matches no cluster range", e),
			fmt.Sprintf("expected: only the cluster CIDR, the service CIDR and the node subnet; %s is none of them", e), actual,
			fmt.Sprintf("pods reaching addresses in %s are not SNATed, so replies from outside the cluster are lost (FM-10)", e))
	case len(broader) > 0 && !equalsAny(e, cluster, service, mgmt):
		v.add(Warn, fmt.Sprintf("ExceptionList entry %s is broader than needed", e),
			fmt.Sprintf("expected: %s itself; %s also covers addresses outside the cluster", strings.Join(broader, " and "), e), actual,
			"an external destination inside it is not SNATed and its replies are lost: \"exclude the external IP you are trying to query from the ExceptionList\" (Kubernetes docs)")
	}
}

// equalsAny: an entry that is exactly one known range is never "broader", even if it
// happens to contain a smaller one too.
// isAzureCNI: the AKS CNI, whose network is "azure" on the node's VNet subnet.
func isAzureCNI(cni decode.CNIConfig) bool { return strings.EqualFold(cni.Type, "azure-vnet") }

func equalsAny(e netip.Prefix, rs ...addrRange) bool {
	for _, r := range rs {
		if r.known() && e == r.prefix.Masked() {
			return true
		}
	}
	return false
}

func coveredBy(entries []netip.Prefix, r netip.Prefix) bool {
	for _, e := range entries {
		if clusterconfig.Covers(e, r) {
			return true
		}
	}
	return false
}

// azureOverlay: an Azure CNI config is Azure CNI Overlay's when none of its ExceptionList
// entries holds the node's own address (the VNet, which holds the node, is listed only
// without overlay: Azure/AgentBaker azurecnifunc.ps1 Set-AzureCNIConfig) and the pod
// range is not the node's subnet: the node has a podCIDR of the overlay pod CIDR, or the
// list covers the cluster CIDR, which then lies outside the node's subnet. An Azure CNI
// list that merely lost its VNet entries has neither.
func (c C) azureOverlay(entries []netip.Prefix, cluster addrRange) bool {
	_, self, bad := c.clusterNodes()
	if bad != nil || len(entries) == 0 {
		return false
	}
	if self.Spec.PodCIDR == "" && (!cluster.known() || !coveredBy(entries, cluster.prefix)) {
		return false
	}
	ip, err := netip.ParseAddr(decode.NodeAddress(self, "InternalIP"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Contains(ip) {
			return false
		}
	}
	return true
}

// parseExceptions reads the ExceptionList's entries as prefixes (a bare address is its
// own /32 or /128), warning of each that is neither.
func parseExceptions(v *verdict, list []string) []netip.Prefix {
	var entries []netip.Prefix
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				v.add(Warn, fmt.Sprintf("ExceptionList entry %q is not a CIDR", s))
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		entries = append(entries, p.Masked())
	}
	return entries
}

// natNeed is a range the ExceptionList must cover, and what its absence is.
type natNeed struct {
	what string
	r    addrRange
	bad  Status
}

// azureNeeds is what Azure CNI's ExceptionList must hold: the node's VNet subnet (its pod
// subnet), or with Azure CNI Overlay the cluster CIDR; unknown from a pasted node table.
func (c C) azureNeeds(entries []netip.Prefix, clusterR, mgmt addrRange) []natNeed {
	need := natNeed{"node subnet (Azure CNI's pod subnet)", mgmt, Fail}
	switch {
	case c.azureOverlay(entries, clusterR):
		need.what, need.r = "cluster CIDR (Azure CNI Overlay's pod CIDR)", clusterR
	case c.layoutUnknown():
		// A pasted node table shows no podCIDR: whether Azure CNI runs as Overlay (the
		// cluster CIDR listed) or on the VNet (the node subnet listed) is not known.
		need.what, need.r = "node subnet or cluster CIDR (Overlay or not is not shown by a pasted node table)", addrRange{}
	}
	return []natNeed{need}
}
