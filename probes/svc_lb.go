package probes

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// serviceLBs (SVC-LB-POLICY): kube-proxy programmed the node's Service dataplane (FM-20).
//
//   - the DNS VIP: an ELB policy for UDP 53 and one for TCP 53 on the kube-dns ClusterIP
//     (microsoft/SDN networkhealth ValidDNSLoadbalancerPolicy, hnsautomitigator's
//     `(Get-HnsPolicyList).Policies | ? InternalPort -eq 53` check). Without them Windows
//     pods' DNS times out while Linux pods resolve.
//   - the DNS VIP's backends are the CoreDNS pods live in the kube-dns EndpointSlices.
//   - every other ClusterIP port of a Service with ready endpoints in its EndpointSlices
//     has its policy (one without ready endpoints has none by design), selector or not:
//     kube-proxy (pkg/proxy/winkernel/proxier.go) builds its load balancers from the
//     EndpointSlices it watches (OnEndpointSliceAdd/Update feed endpointsMap), never from
//     selectors, so the selector-less default/kubernetes gets one whose backends are the
//     API servers its slice lists (remote endpoints, "assuming it is a public IP").
//     Evidence without EndpointSlices judges readiness from cluster/pods.json, which may
//     lack the backends, so a missing policy only warns there; selector-less Services
//     cannot be judged from it at all, which the finding says.
//   - every endpoint a policy balances over exists (a stale reference black-holes the
//     traffic sent to it: networkhealth LoadBalancerStaleRemoteEndpoints), and on overlay
//     the policies' source VIP is a local endpoint.
type serviceLBs struct{}

func (serviceLBs) Spec() Spec {
	return Spec{ID: "SVC-LB-POLICY", Title: "kube-proxy's load balancers: DNS VIP on UDP and TCP 53, each ClusterIP port, no stale backends",
		FM: []string{"FM-20", "FM-14"},
		Reads: []evidence.Ref{evidence.HNSPolicies(), evidence.HNSEndpoints(), evidence.ClusterServices(), evidence.Processes(),
			evidence.KubeProxyLog(), evidence.Services(), evidence.Pods(), evidence.HNSNetworks(), evidence.CNIConfig(), evidence.EndpointSlices()}}
}

// lbKey is one load balancer: VIP, protocol number and service port.
type lbKey struct {
	vip   string
	proto int64
	port  int64
}

func (k lbKey) String() string { return fmt.Sprintf("%s %s/%d", k.vip, protoName(k.proto), k.port) }

func protoName(p int64) string {
	switch p {
	case 6:
		return "TCP"
	case 17:
		return "UDP"
	}
	return fmt.Sprint(p)
}

func protoNumber(p corev1.Protocol) int64 {
	switch p {
	case corev1.ProtocolUDP:
		return 17
	case corev1.ProtocolSCTP:
		return 132
	}
	return 6
}

func (serviceLBs) Check(c C) Finding {
	procs, procPath, bad := need(c, evidence.Processes())
	if bad != nil {
		return *bad
	}
	if _, ok := decode.FindProcess(procs, "kube-proxy"); !ok {
		if _, antrea := c.antreaProxies(); antrea {
			// antrea-io/antrea docs/design/windows-design.md: AntreaProxy load-balances
			// ClusterIP traffic in the OVS pipeline, so HNS holds no load balancers for it.
			return c.Skip("no kube-proxy on this Antrea node: AntreaProxy balances Services in OVS flows, not HNS load balancers", procPath).
				With("to check: antctl get servicelist, or ovs-ofctl dump-flows br-int inside the antrea-agent pod")
		}
		return c.Skip("kube-proxy is not running (SVC-KUBEPROXY): it programs no load balancers", procPath)
	}
	if ms, read, _ := c.scanLogs(false, evidence.KubeProxyLog()); slices.ContainsFunc(ms, func(m logMatch) bool {
		return m.sig.id == "kube-proxy-network-missing"
	}) {
		return c.Skip("kube-proxy has not found its HNS network (HNS-KPROXY-NET): it programs no load balancers", read...)
	}
	lists, polPath, bad := need(c, evidence.HNSPolicies())
	if bad != nil {
		return c.notCollected(polPath, bad)
	}
	svcs, svcPath, bad := need(c, evidence.ClusterServices())
	if bad != nil {
		return *bad
	}
	eps, epPath, epBad := need(c, evidence.HNSEndpoints())
	cites := []string{polPath, svcPath, procPath}
	have := map[lbKey][]decode.HNSPolicyList{}
	sourceVIPs := map[string]bool{}
	for _, l := range lists {
		for _, p := range l.Policies {
			if !strings.EqualFold(string(p.Type), "ELB") {
				continue
			}
			for _, vip := range p.VIPs {
				k := lbKey{vip, int64(p.Protocol), int64(p.ExternalPort)}
				have[k] = append(have[k], l)
			}
			if p.SourceVIP != "" {
				sourceVIPs[string(p.SourceVIP)] = true
			}
		}
	}
	if len(have) == 0 {
		// Not one load balancer: a winkernel kube-proxy that never synced looks exactly
		// like one in userspace mode, or a CNI that proxies Services itself (AntreaProxy
		// programs OVS flows, not HNS load balancers). The list alone cannot tell.
		return c.Skip("no HNS load balancers at all: cannot tell a kube-proxy that never synced from one that does not program HNS",
			polPath, procPath).With(
			"check kube-proxy's --proxy-mode (kernelspace programs HNS load balancers; userspace does not) and its log for sync errors",
			"with Antrea, AntreaProxy serves Services instead: check `antctl get ovsflows` on the node",
			"on the node: Get-HnsPolicyList | Select -Expand Policies (expect ELB policies for the kube-dns VIP on UDP and TCP 53)")
	}
	dnsIP, _ := clusterconfig.KubeDNS(svcs)
	var fails, warns []string
	for _, want := range []lbKey{{dnsIP, 17, 53}, {dnsIP, 6, 53}} {
		if dnsIP != "" && len(have[want]) == 0 {
			fails = append(fails, "no load balancer for the DNS VIP "+want.String())
		}
	}
	pods, podsOK := optional(c, evidence.Pods())
	if podsOK {
		cites = append(cites, c.Path(evidence.Pods()))
	}
	sv := c.sliceView()
	if sv.ok {
		cites = append(cites, sv.path)
	}
	checked := 0
	var unjudged, skipped []string
	for _, s := range svcs {
		ip := s.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone {
			continue
		}
		if why := notProxied(s); why != "" {
			// Not kube-proxy's to program here: judging it would cry wolf.
			skipped = append(skipped, s.Namespace+"/"+s.Name+" ("+why+")")
			continue
		}
		live, known := sv.ready(s)
		if len(s.Spec.Selector) == 0 && !known {
			// kube-proxy balances whatever EndpointSlices name the Service, selector or not
			// (default/kubernetes: the API servers' slice). Without the slices its backends
			// are nowhere in the evidence; with them and none for it, it has no endpoints.
			if !sv.ok {
				unjudged = append(unjudged, s.Namespace+"/"+s.Name)
			}
			continue
		}
		if (known && len(live) == 0) || (!known && noReadyBackend(s, pods)) {
			continue
		}
		for _, p := range s.Spec.Ports {
			k := lbKey{ip, protoNumber(p.Protocol), int64(p.Port)}
			checked++
			switch {
			case len(have[k]) > 0 || (ip == dnsIP && p.Port == 53):
			case known && isAPIServerService(s):
				fails = append(fails, fmt.Sprintf("the kubernetes Service's ClusterIP has no load balancer for %s, though its EndpointSlice lists the API server(s) %s: pods on this node cannot reach the API server at kubernetes.default.svc (in-cluster clients, operators and CNI agents time out)",
					k, strings.Join(live, ", ")))
			case known:
				fails = append(fails, fmt.Sprintf("Service %s/%s has %d ready endpoint(s) in its EndpointSlices but no load balancer for %s", s.Namespace, s.Name, len(live), k))
			default:
				warns = append(warns, fmt.Sprintf("Service %s/%s: no load balancer for %s (none is made while it has no ready endpoints)", s.Namespace, s.Name, k))
			}
		}
	}
	if epBad == nil {
		cites = append(cites, epPath)
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
					fails = append(fails, fmt.Sprintf("policy list %s balances over endpoint %s, which does not exist (stale backend)", l.ID, id))
				}
			}
		}
		for vip := range sourceVIPs {
			if !local[vip] {
				fails = append(fails, fmt.Sprintf("the load balancers' source VIP %s has no local endpoint: overlay Service traffic cannot be SNATed", vip))
			}
		}
		if dns, ok := findService(svcs, dnsIP); ok {
			f, w := sv.dnsBackends(dns, have, eps)
			fails, warns = append(fails, f...), append(warns, w...)
		}
		if len(sourceVIPs) > 0 {
			if why, path := c.sourceVIPOutside(sourceVIPs); why != "" {
				fails = append(fails, why)
				cites = append(cites, path)
			}
		}
	} else {
		warns = append(warns, "endpoints not cross-checked: "+epBad.Summary)
	}
	slices.Sort(fails)
	slices.Sort(warns)
	facts := fmt.Sprintf("%d load balancer(s) for %d ClusterIP port(s) of Services with endpoints", len(have), checked)
	var notes []string
	if len(unjudged) > 0 {
		notes = append(notes, unjudgedNote(unjudged))
	}
	if len(skipped) > 0 {
		notes = append(notes, "not kube-proxy's load balancers to judge: "+strings.Join(skipped, ", "))
	}
	switch {
	case len(fails) > 0:
		return c.Fail(fails[0], cites...).With(append(append([]string{facts}, fails[1:]...), warns...)...).With(notes...).WithFix(restartKubeProxyFix(c, c.id))
	case len(warns) > 0:
		return c.Warn(warns[0], cites...).With(append([]string{facts}, warns[1:]...)...).With(notes...)
	}
	return c.Pass(facts+"; the DNS VIP "+dnsIP+" on UDP and TCP 53", cites...).With(notes...)
}

// sourceVIPOutside says which source VIP lies outside every pod network of the node (a
// SourceVip.json left from before a rejoin: DOMAIN.md FM-13), with the path it read.
func (c C) sourceVIPOutside(vips map[string]bool) (string, string) {
	nets, ok := optional(c, evidence.HNSNetworks())
	if !ok {
		return "", ""
	}
	var pfxs []string
	for vip := range vips {
		addr, err := netip.ParseAddr(vip)
		if err != nil {
			continue
		}
		inside := false
		for _, n := range nets {
			if isHostOnly(n) {
				continue
			}
			for _, p := range n.Prefixes() {
				if pfx, ok := prefix(p); ok {
					pfxs = append(pfxs, p)
					inside = inside || pfx.Contains(addr)
				}
			}
		}
		if !inside && len(pfxs) > 0 {
			return fmt.Sprintf("the load balancers' source VIP %s is outside the node's pod network (%s): a stale SourceVip.json from before a rejoin",
				vip, strings.Join(pfxs, ", ")), c.Path(evidence.HNSNetworks())
		}
	}
	return "", ""
}

// noReadyBackend says whether cluster/pods.json holds pods the Service selects and none
// of them is Ready: then it has no ready endpoints and kube-proxy makes no load balancer
// for it. Pods it does not hold (the list may be the Windows nodes' only) prove nothing.
func noReadyBackend(s corev1.Service, pods []corev1.Pod) bool {
	matched := false
	for _, p := range pods {
		if p.Namespace != s.Namespace || !selects(s.Spec.Selector, p.Labels) {
			continue
		}
		matched = true
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				return false
			}
		}
	}
	return matched
}

func selects(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// restartKubeProxyFix is networkhealth's and hnsautomitigator's resolution: kube-proxy
// rebuilds every policy on start.
func restartKubeProxyFix(c C, verify string) *Fix {
	name := "kube-proxy"
	if svcs, ok := optional(c, evidence.Services()); ok {
		if s, ok := decode.FindService(svcs, "kube-proxy", "kubeproxy"); ok {
			name = s.Name
		}
	}
	return &Fix{ID: "restart-kube-proxy", Title: "Restart kube-proxy so it reprograms the load balancers", Kind: Manual, Verify: verify,
		Impact:   "Service traffic on this node pauses while kube-proxy restarts (seconds)",
		Commands: []string{"Restart-Service -Name " + psQuote(name) + " -Force"},
		Notes:    []string{"if the policies come back wrong, `Get-HnsPolicyList | Remove-HnsPolicyList` with kube-proxy stopped, then start it (microsoft/Windows-Containers#61)"}}
}
