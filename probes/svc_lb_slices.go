package probes

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// sliceView is cluster/endpointslices.json when it was collected: the backends
// kube-proxy balances over, as kube-proxy itself reads them (it watches EndpointSlices,
// pkg/proxy/endpointslicecache.go). Evidence from before it was collected, or from a
// user without the RBAC to list them, has none: SVC-LB-POLICY then judges from
// cluster/pods.json as it did before, and only warns.
type sliceView struct {
	items []discoveryv1.EndpointSlice
	path  string
	ok    bool
}

func (c C) sliceView() sliceView {
	items, ok := optional(c, evidence.EndpointSlices())
	return sliceView{items: items, path: c.Path(evidence.EndpointSlices()), ok: ok}
}

// ready is the Service's ready endpoint addresses; known is false when the slices were
// not collected or the Service has none (a Service with a selector always has at least
// one slice, empty or not, once the EndpointSlice controller has seen it).
func (v sliceView) ready(s corev1.Service) (addrs []string, known bool) {
	if !v.ok {
		return nil, false
	}
	se := decode.EndpointsOf(v.items, s.Namespace, s.Name)
	return se.Ready, se.Slices > 0
}

// dnsBackends compares the backends of the DNS VIP's load balancers (the policy lists'
// endpoint references, resolved to addresses through hns-endpoints.json) with the
// kube-dns Service's ready endpoints: a backend that is not a live CoreDNS pod
// black-holes the queries HNS sends it (a CoreDNS pod rescheduled while kube-proxy did
// not resync), and a live pod missing from the policy only narrows DNS to the others.
func (v sliceView) dnsBackends(dns corev1.Service, have map[lbKey][]decode.HNSPolicyList, eps []decode.HNSEndpoint) (fails, warns []string) {
	live, known := v.ready(dns)
	if !known {
		return nil, nil
	}
	ipOf := map[string]string{}
	for _, e := range eps {
		ipOf[strings.ToUpper(string(e.ID))] = string(e.IPAddress)
	}
	for _, k := range []lbKey{{dns.Spec.ClusterIP, 17, 53}, {dns.Spec.ClusterIP, 6, 53}} {
		var backends []string
		for _, l := range have[k] {
			for _, id := range l.EndpointIDs() {
				if ip := ipOf[id]; ip != "" && !slices.Contains(backends, ip) {
					backends = append(backends, ip)
				}
			}
		}
		if len(backends) == 0 {
			continue // no load balancer (reported already) or no endpoint to resolve
		}
		slices.Sort(backends)
		for _, ip := range backends {
			if !slices.Contains(live, ip) {
				fails = append(fails, fmt.Sprintf("the DNS VIP's load balancer %s balances over %s, which is not a live CoreDNS endpoint (EndpointSlices of %s/%s: %s): queries sent there are lost",
					k, ip, dns.Namespace, dns.Name, noneReady(live)))
			}
		}
		for _, ip := range live {
			if !slices.Contains(backends, ip) {
				warns = append(warns, fmt.Sprintf("the DNS VIP's load balancer %s lacks the live CoreDNS endpoint %s", k, ip))
			}
		}
	}
	return fails, warns
}

func noneReady(ss []string) string {
	if len(ss) == 0 {
		return "none ready"
	}
	return strings.Join(ss, ", ")
}

// findService is the Service with the ClusterIP.
func findService(svcs []corev1.Service, ip string) (corev1.Service, bool) {
	for _, s := range svcs {
		if ip != "" && s.Spec.ClusterIP == ip {
			return s, true
		}
	}
	return corev1.Service{}, false
}
