// The Service dataplane as it is live: the EndpointSlices behind SVC-LB-POLICY and
// kube-proxy's health port (SVC-KPROXY-HEALTH).

package probes

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
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
	items, ok := optional(c, evidence.EndpointSlices)
	return sliceView{items: items, path: c.Path(evidence.EndpointSlices), ok: ok}
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

// isAPIServerService: default/kubernetes, the selector-less Service kube-apiserver keeps
// (its endpoint reconciler writes the EndpointSlice "kubernetes" with one ready endpoint
// per API server, pkg/controlplane/reconcilers/endpointsadapter.go).
func isAPIServerService(s corev1.Service) bool {
	return s.Namespace == "default" && s.Name == "kubernetes"
}

// notProxied says why kube-proxy makes no ClusterIP load balancer on this node for a
// Service it would otherwise balance: one labelled service.kubernetes.io/service-proxy-name
// belongs to another proxy (kube-proxy's informers exclude it, cmd/kube-proxy/app/server.go),
// and one with internalTrafficPolicy Local has a load balancer only where it has a local
// endpoint, which the slices' node names would have to tell.
func notProxied(s corev1.Service) string {
	if v, ok := s.Labels["service.kubernetes.io/service-proxy-name"]; ok {
		return "service-proxy-name " + v
	}
	if p := s.Spec.InternalTrafficPolicy; p != nil && *p == corev1.ServiceInternalTrafficPolicyLocal {
		return "internalTrafficPolicy Local"
	}
	return ""
}

// unjudgedNote says which selector-less Services evidence without EndpointSlices cannot
// judge: their backends (the API servers, for default/kubernetes) are named only in the
// slices (or Endpoints), never by pods.json.
func unjudgedNote(names []string) string {
	return "not judged without cluster/endpointslices.json: " + strings.Join(names, ", ") +
		" (no selector, so cluster/pods.json cannot tell its backends); collect again, or on the node: " +
		"Get-HnsPolicyList | ? { $_.Policies.VIPs -contains '<ClusterIP>' } (expect one ELB per port)"
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

// kubeProxyHealth (SVC-KPROXY-HEALTH): kube-proxy's health port answers.
// kube-proxy serves /healthz on --healthz-bind-address (KubeProxyConfiguration
// healthzBindAddress, default 0.0.0.0:10256): 200 while its last rule sync is recent,
// 503 when it has not synced within its healthz timeout (pkg/proxy/healthcheck
// ProxierHealthServer). A process that runs but does not answer has lost its server
// (cmd/kube-proxy/app/server.go logs "Healthz server failed" and the port is often held
// by another process) or hangs; cloud load balancers (externalTrafficPolicy: Cluster)
// and AKS's own health checks read this port, so the node drops out of Service traffic.
// Evidence collected before the live sweep asked the port has only the log to go on.
type kubeProxyHealth struct{}

func (kubeProxyHealth) Spec() Spec {
	return Spec{ID: "SVC-KPROXY-HEALTH", Title: "kube-proxy's /healthz answers 200 while it runs",
		FM: []string{"FM-20"}, Reads: []evidence.Ref{evidence.KubeProxyHealth, evidence.KubeProxyLog}}
}

func (kubeProxyHealth) Check(c C) Finding {
	p := c.Path(evidence.KubeProxyHealth)
	h, err := evidence.Get(c.ev, c.node, evidence.KubeProxyHealth)
	ms, _, _ := c.scanLogs(false, evidence.KubeProxyLog)
	logDetails, logPaths := logSupport("SVC-KPROXY-HEALTH", ms)
	if err != nil {
		if why := c.ev.CollectError(p); strings.Contains(why, "kube-proxy is not running") {
			return c.Skip("kube-proxy is not running (SVC-KUBEPROXY judges it): there is no health port to ask", p)
		}
		if len(logDetails) > 0 {
			return c.Fail("kube-proxy's log says its healthz server failed", append(logPaths, p)...).
				With(logDetails...).With("no answer of the port was recorded (" + p + "): the log is the evidence").WithFix(kproxyHealthFix(c.id, "0.0.0.0:10256"))
		}
		f := c.problem(p, err)
		if f.Status == Skip {
			return c.Skip("no answer of kube-proxy's health port recorded and its log has no healthz failure", p).
				With("evidence collected by an older version lacks " + p + "; collect again")
		}
		return f
	}
	cites := []string{p}
	where := fmt.Sprintf("%s (bind address %s, from %s)", h.URL, h.BindAddress, h.From)
	switch {
	case h.StatusCode == 200:
		return c.Pass("kube-proxy's /healthz answered 200 at "+where, cites...)
	case h.StatusCode == 503:
		return c.Fail("kube-proxy's /healthz answers 503: its rules have not synced within its healthz timeout", append(cites, logPaths...)...).
			With("asked "+where, "body: "+clip(string(h.Content), 200)).With(logDetails...).WithFix(kproxyHealthFix(c.id, string(h.BindAddress)))
	case h.StatusCode != 0:
		return c.Fail(fmt.Sprintf("kube-proxy's /healthz answered %d", h.StatusCode), append(cites, logPaths...)...).
			With("asked "+where, "error: "+string(h.Error)).With(logDetails...).WithFix(kproxyHealthFix(c.id, string(h.BindAddress)))
	}
	return c.Fail("kube-proxy runs (process "+fmt.Sprint(h.ProcessId)+") but its health port does not answer", append(cites, logPaths...)...).
		With("asked "+where, "error: "+clip(string(h.Error), 300),
			"load balancers and health checks that read the port take the node out of Service traffic").
		With(logDetails...).WithFix(kproxyHealthFix(c.id, string(h.BindAddress)))
}

func kproxyHealthFix(verify, addr string) *Fix {
	port := addr
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		port = addr[i+1:]
	}
	return &Fix{ID: "restart-kube-proxy-healthz", Title: "Free kube-proxy's health port and restart it", Kind: Manual, Verify: verify,
		Impact: "Service rules are resynced from scratch; connections through the node may reset",
		Commands: []string{
			"Get-NetTCPConnection -LocalPort " + port + " -State Listen | Select OwningProcess   # who holds the port",
			"Restart-Service kube-proxy   # or delete the kube-proxy pod on HostProcess layouts",
		},
		Notes: []string{"if another process holds the port, move kube-proxy with --healthz-bind-address (or healthzBindAddress in its config)"}}
}
