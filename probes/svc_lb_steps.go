// The steps of SVC-LB-POLICY (svc_lb.go): whether kube-proxy programs HNS load balancers
// here at all, the load balancers it must have, and the backends and source VIPs of those
// it has, each judged as pkg/proxy/winkernel/proxier.go programs them.

package probes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// lbIndex is the node's ELB policies by VIP, protocol and port, and the source VIPs they use.
type lbIndex struct {
	have       map[lbKey][]decode.HNSPolicyList
	sourceVIPs map[string]bool
}

func indexLBs(lists []decode.HNSPolicyList) lbIndex {
	lb := lbIndex{have: map[lbKey][]decode.HNSPolicyList{}, sourceVIPs: map[string]bool{}}
	for _, l := range lists {
		for _, p := range l.Policies {
			if !strings.EqualFold(string(p.Type), "ELB") {
				continue
			}
			for _, vip := range p.VIPs {
				k := lbKey{vip, int64(p.Protocol), int64(p.ExternalPort)}
				lb.have[k] = append(lb.have[k], l)
			}
			if p.SourceVIP != "" {
				lb.sourceVIPs[string(p.SourceVIP)] = true
			}
		}
	}
	return lb
}

// lbJudgement collects what the steps found.
type lbJudgement struct {
	fails, warns, notes []string
	unjudged, skipped   []string
	cites               []string
	checked             int
}

// lbNotProgrammed: the node has no kube-proxy to program load balancers, or it has not
// found its network; then there is nothing to judge.
func (c C) lbNotProgrammed(procs []decode.Process, procPath string) (Finding, bool) {
	if _, ok := decode.FindProcess(procs, "kube-proxy"); !ok {
		if _, antrea := c.antreaProxies(); antrea {
			// antrea-io/antrea docs/design/windows-design.md: AntreaProxy load-balances
			// ClusterIP traffic in the OVS pipeline, so HNS holds no load balancers for it.
			return c.Skip("no kube-proxy on this Antrea node: AntreaProxy balances Services in OVS flows, not HNS load balancers", procPath).
				With("to check: antctl get servicelist, or ovs-ofctl dump-flows br-int inside the antrea-agent pod"), true
		}
		return c.Skip("kube-proxy is not running (SVC-KUBEPROXY): it programs no load balancers", procPath), true
	}
	if ms, read, _ := c.scanLogs(false, evidence.KubeProxyLog); slices.ContainsFunc(ms, func(m logMatch) bool {
		return m.sig.id == "kube-proxy-network-missing"
	}) {
		return c.Skip("kube-proxy has not found its HNS network (HNS-KPROXY-NET): it programs no load balancers", read...), true
	}
	return Finding{}, false
}

// userspaceRemovedMinor: kube-proxy v1.26 dropped the userspace proxier on Windows too
// (CHANGELOG-1.26: "The userspace proxy mode (deprecated for over a year) is no longer
// supported on either Linux or Windows"), so from then on a running Windows kube-proxy is
// the winkernel (kernelspace) proxier.
const userspaceRemovedMinor = 26

// kernelspace says how the evidence shows kube-proxy runs the winkernel proxier, "" when
// it does not: its --proxy-mode, else the node's version.
func (c C) kernelspace(procs []decode.Process) string {
	if p, ok := decode.FindProcess(procs, "kube-proxy"); ok {
		if m, ok := decode.CommandFlags(string(p.CommandLine))["proxy-mode"]; ok {
			if strings.EqualFold(m, "kernelspace") {
				return "kube-proxy --proxy-mode=kernelspace"
			}
			return ""
		}
	}
	if minor, version := c.kubeletMinor(); minor >= userspaceRemovedMinor {
		return "the node runs Kubernetes " + version + ", whose Windows kube-proxy has only the kernelspace proxier (v1.26 removed userspace)"
	}
	return ""
}

// noLoadBalancers judges a node without one ELB policy. While kube-proxy runs the
// winkernel proxier and Services have ready endpoints it must have made some: every
// Service port with endpoints gets a ClusterIP load balancer (syncProxyRules), and
// default/kubernetes always has the API servers. Otherwise the list alone cannot tell a
// kube-proxy that never synced from one that does not program HNS.
func (c C) noLoadBalancers(procs []decode.Process, svcs []corev1.Service, polPath, procPath string) Finding {
	mode := c.kernelspace(procs)
	sv := c.sliceView()
	var withEndpoints []string
	for _, s := range svcs {
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone || notProxied(s) != "" {
			continue
		}
		if live, known := sv.ready(s); known && len(live) > 0 {
			withEndpoints = append(withEndpoints, s.Namespace+"/"+s.Name)
		}
	}
	if mode != "" && len(withEndpoints) > 0 {
		return c.Fail(fmt.Sprintf("kube-proxy runs the kernelspace proxier but programmed no HNS load balancer, though %d Service(s) have ready endpoints", len(withEndpoints)),
			polPath, procPath, sv.path, c.Path(evidence.ClusterNodes)).With(
			"kernelspace: "+mode,
			"Services with ready endpoints in their EndpointSlices: "+strings.Join(withEndpoints, ", "),
			"expected: one ELB policy per ClusterIP port of each (pkg/proxy/winkernel/proxier.go syncProxyRules); without them pods on this node reach no Service",
			"check kube-proxy's log for sync errors, and on the node: Get-HnsPolicyList | Select -Expand Policies").
			WithFix(restartKubeProxyFix(c, c.id))
	}
	return c.Skip("no HNS load balancers at all: cannot tell a kube-proxy that never synced from one that does not program HNS",
		polPath, procPath).With(
		"check kube-proxy's --proxy-mode (kernelspace programs HNS load balancers; userspace does not) and its log for sync errors",
		"with Antrea, AntreaProxy serves Services instead: check `antctl get ovsflows` on the node",
		"on the node: Get-HnsPolicyList | Select -Expand Policies (expect ELB policies for the kube-dns VIP on UDP and TCP 53)")
}

// dnsVIP: the kube-dns VIP has its UDP and TCP 53 load balancers.
func (j *lbJudgement) dnsVIP(dnsIP string, lb lbIndex) {
	for _, want := range []lbKey{{dnsIP, 17, 53}, {dnsIP, 6, 53}} {
		if dnsIP != "" && len(lb.have[want]) == 0 {
			j.fails = append(j.fails, "no load balancer for the DNS VIP "+want.String())
		}
	}
}

// servicePorts: every ClusterIP port of a Service with ready endpoints has its load
// balancer.
func (c C) servicePorts(j *lbJudgement, svcs []corev1.Service, lb lbIndex, dnsIP string) {
	pods, podsOK := optional(c, evidence.Pods)
	if podsOK {
		j.cites = append(j.cites, c.Path(evidence.Pods))
	}
	sv := c.sliceView()
	if sv.ok {
		j.cites = append(j.cites, sv.path)
	}
	for _, s := range svcs {
		ip := s.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone {
			continue
		}
		if why := notProxied(s); why != "" {
			// Not kube-proxy's to program here: judging it would cry wolf.
			j.skipped = append(j.skipped, s.Namespace+"/"+s.Name+" ("+why+")")
			continue
		}
		live, known := sv.ready(s)
		if len(s.Spec.Selector) == 0 && !known {
			// kube-proxy balances whatever EndpointSlices name the Service, selector or not
			// (default/kubernetes: the API servers' slice). Without the slices its backends
			// are nowhere in the evidence; with them and none for it, it has no endpoints.
			if !sv.ok {
				j.unjudged = append(j.unjudged, s.Namespace+"/"+s.Name)
			}
			continue
		}
		if (known && len(live) == 0) || (!known && noReadyBackend(s, pods)) {
			continue
		}
		for _, p := range s.Spec.Ports {
			j.checked++
			j.servicePort(s, lbKey{ip, protoNumber(p.Protocol), int64(p.Port)}, lb, dnsIP, live, known)
		}
	}
}

func (j *lbJudgement) servicePort(s corev1.Service, k lbKey, lb lbIndex, dnsIP string, live []string, known bool) {
	switch {
	case len(lb.have[k]) > 0 || (k.vip == dnsIP && k.port == 53):
	case known && isAPIServerService(s):
		j.fails = append(j.fails, fmt.Sprintf("the kubernetes Service's ClusterIP has no load balancer for %s, though its EndpointSlice lists the API server(s) %s: pods on this node cannot reach the API server at kubernetes.default.svc (in-cluster clients, operators and CNI agents time out)",
			k, strings.Join(live, ", ")))
	case known:
		j.fails = append(j.fails, fmt.Sprintf("Service %s/%s has %d ready endpoint(s) in its EndpointSlices but no load balancer for %s", s.Namespace, s.Name, len(live), k))
	default:
		j.warns = append(j.warns, fmt.Sprintf("Service %s/%s: no load balancer for %s (none is made while it has no ready endpoints)", s.Namespace, s.Name, k))
	}
}

// backends: every endpoint a policy balances over exists, every source VIP is a local
// endpoint or the node's own address, and the DNS VIP balances over live CoreDNS pods.
func (c C) backends(j *lbJudgement, lists []decode.HNSPolicyList, lb lbIndex, svcs []corev1.Service, dnsIP string) {
	eps, epPath, epBad := need(c, evidence.HNSEndpoints)
	if epBad != nil {
		j.warns = append(j.warns, "endpoints not cross-checked: "+epBad.Summary)
		return
	}
	j.cites = append(j.cites, epPath)
	ids := map[string]bool{}
	local := map[string]bool{}
	for _, e := range eps {
		ids[strings.ToUpper(string(e.ID))] = true
		if e.Local() {
			local[string(e.IPAddress)] = true
		}
	}
	for _, l := range lists {
		for _, id := range l.EndpointIDs() {
			if !ids[id] {
				j.fails = append(j.fails, fmt.Sprintf("policy list %s balances over endpoint %s, which does not exist (stale backend)", l.ID, id))
			}
		}
	}
	podVIPs := c.podSourceVIPs(j, lb.sourceVIPs)
	for _, vip := range slices.Sorted(maps.Keys(podVIPs)) {
		if !local[vip] {
			j.fails = append(j.fails, fmt.Sprintf("the load balancers' source VIP %s has no local endpoint: overlay Service traffic cannot be SNATed", vip))
		}
	}
	if dns, ok := findService(svcs, dnsIP); ok {
		f, w := c.sliceView().dnsBackends(dns, lb.have, eps)
		j.fails, j.warns = append(j.fails, f...), append(j.warns, w...)
	}
	if len(podVIPs) > 0 {
		if why, path := c.sourceVIPOutside(podVIPs); why != "" {
			j.fails = append(j.fails, why)
			j.cites = append(j.cites, path)
		}
	}
}

// podSourceVIPs are the source VIPs that must be pod-network endpoints: all but the
// node's own addresses. On overlay the winkernel proxier gives a load balancer the node IP
// as its source VIP when one of its backends is outside every remote subnet (a public IP:
// the API servers of default/kubernetes) or is another node's address (a host-network
// pod), and kube-proxy's --source-vip otherwise (proxier.go syncProxyRules, "The logic
// for choosing the SourceVIP in Overlay networks is based on the backend endpoints").
func (c C) podSourceVIPs(j *lbJudgement, vips map[string]bool) map[string]bool {
	own := c.nodeIPs()
	out := map[string]bool{}
	var asNode []string
	for vip := range vips {
		if own[vip] {
			asNode = append(asNode, vip)
			continue
		}
		out[vip] = true
	}
	if len(asNode) > 0 {
		slices.Sort(asNode)
		j.notes = append(j.notes, "source VIP "+strings.Join(asNode, ", ")+" is the node's own address: kube-proxy uses it for load balancers whose backends are outside the pod network (the API servers) or node addresses")
		j.cites = append(j.cites, c.Path(evidence.ClusterNodes))
	}
	return out
}

// nodeIPs are the node's own addresses: its InternalIP and ExternalIP in nodes.json and
// its interface addresses.
func (c C) nodeIPs() map[string]bool {
	own := map[string]bool{}
	if _, self, bad := c.clusterNodes(); bad == nil {
		for _, a := range self.Status.Addresses {
			if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
				own[a.Address] = true
			}
		}
	}
	if ips, ok := optional(c, evidence.IPAddresses); ok {
		for _, a := range ips {
			own[string(a.IPAddress)] = true
		}
	}
	return own
}

// lbVerdict turns what the steps found into the finding.
func (c C) lbVerdict(j *lbJudgement, lbs int, dnsIP string) Finding {
	slices.Sort(j.fails)
	slices.Sort(j.warns)
	facts := fmt.Sprintf("%d load balancer(s) for %d ClusterIP port(s) of Services with endpoints", lbs, j.checked)
	notes := j.notes
	if len(j.unjudged) > 0 {
		notes = append(notes, unjudgedNote(j.unjudged))
	}
	if len(j.skipped) > 0 {
		notes = append(notes, "not kube-proxy's load balancers to judge: "+strings.Join(j.skipped, ", "))
	}
	switch {
	case len(j.fails) > 0:
		return c.Fail(j.fails[0], j.cites...).With(append(append([]string{facts}, j.fails[1:]...), j.warns...)...).With(notes...).WithFix(restartKubeProxyFix(c, c.id))
	case len(j.warns) > 0:
		return c.Warn(j.warns[0], j.cites...).With(append([]string{facts}, j.warns[1:]...)...).With(notes...)
	}
	return c.Pass(facts+"; the DNS VIP "+dnsIP+" on UDP and TCP 53", j.cites...).With(notes...)
}

// dnsServiceIP is the cluster DNS VIP: the kube-dns Service (clusterconfig.KubeDNS), else
// cluster-config.json's kubeDNS, which names it where the Service has another name
// (OpenShift's openshift-dns/dns-default).
func (c C) dnsServiceIP(svcs []corev1.Service) string {
	if ip, _ := clusterconfig.KubeDNS(svcs); ip != "" {
		return ip
	}
	if cfg, ok := optional(c, evidence.ClusterConfig); ok {
		return cfg.KubeDNS
	}
	return ""
}
