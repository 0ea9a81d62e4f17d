package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// kubeProxyHealth (SVC-KPROXY-HEALTH): kube-proxy's health port answers (issue 14,
// item 1). kube-proxy serves /healthz on --healthz-bind-address (KubeProxyConfiguration
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
		FM: []string{"FM-20"}, Reads: []evidence.Ref{evidence.KubeProxyHealth(), evidence.KubeProxyLog()}}
}

func (kubeProxyHealth) Check(c C) Finding {
	p := c.Path(evidence.KubeProxyHealth())
	h, err := evidence.Get(c.ev, c.node, evidence.KubeProxyHealth())
	ms, _, _ := c.scanLogs(false, evidence.KubeProxyLog())
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
