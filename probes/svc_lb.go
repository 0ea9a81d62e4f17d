package probes

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
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
		Reads: []evidence.Ref{evidence.HNSPolicies, evidence.HNSEndpoints, evidence.ClusterServices, evidence.Processes,
			evidence.KubeProxyLog, evidence.WindowsServices, evidence.Pods, evidence.HNSNetworks, evidence.CNIConfig, evidence.EndpointSlices,
			evidence.ClusterNodes, evidence.IPAddresses, evidence.ClusterConfig}}
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
	procs, procPath, bad := need(c, evidence.Processes)
	if bad != nil {
		return *bad
	}
	if f, stop := c.lbNotProgrammed(procs, procPath); stop {
		return f
	}
	lists, polPath, bad := need(c, evidence.HNSPolicies)
	if bad != nil {
		return c.notCollected(polPath, bad)
	}
	svcs, svcPath, bad := need(c, evidence.ClusterServices)
	if bad != nil {
		return *bad
	}
	lb := indexLBs(lists)
	if len(lb.have) == 0 {
		return c.noLoadBalancers(procs, svcs, polPath, procPath)
	}
	j := &lbJudgement{cites: []string{polPath, svcPath, procPath}}
	dnsIP := c.dnsServiceIP(svcs)
	j.dnsVIP(dnsIP, lb)
	c.servicePorts(j, svcs, lb, dnsIP)
	c.backends(j, lists, lb, svcs, dnsIP)
	return c.lbVerdict(j, len(lb.have), dnsIP)
}

// sourceVIPOutside says which source VIP lies outside every pod network of the node (a
// SourceVip.json left from before a rejoin: failure mode FM-13), with the path it read.
func (c C) sourceVIPOutside(vips map[string]bool) (string, string) {
	nets, ok := optional(c, evidence.HNSNetworks)
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
				vip, strings.Join(pfxs, ", ")), c.Path(evidence.HNSNetworks)
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
	if svcs, ok := optional(c, evidence.WindowsServices); ok {
		if s, ok := decode.FindService(svcs, "kube-proxy", "kubeproxy"); ok {
			name = s.Name
		}
	}
	return &Fix{ID: "restart-kube-proxy", Title: "Restart kube-proxy so it reprograms the load balancers", Kind: Manual, Verify: verify,
		Impact:   "Service traffic on this node pauses while kube-proxy restarts (seconds)",
		Commands: []string{"Restart-Service -Name " + psQuote(name) + " -Force"},
		Notes:    []string{"if the policies come back wrong, `Get-HnsPolicyList | Remove-HnsPolicyList` with kube-proxy stopped, then start it (microsoft/Windows-Containers#61)"}}
}
