package probes

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hostProxy (HOST-PROXY, FM-31): when the node is behind a proxy, the container runtime
// gets it and NO_PROXY spares the cluster's own addresses.
//
// containerd, dockerd and the kubelet are Go programs: they read HTTP_PROXY, HTTPS_PROXY
// and NO_PROXY from their environment and nothing else (net/http.ProxyFromEnvironment,
// whose rules golang.org/x/net/http/httpproxy implements and this probe applies as is).
// A service's environment is the machine-level variables, then its own Environment
// registry value, then (nssm-wrapped services) nssm's AppEnvironmentExtra. So a proxy
// set only for WinHTTP (netsh winhttp), only at user level (setx without /M), or only
// on one of the runtime services reaches the runtime not at all: the Kubernetes and
// Microsoft docs set the machine-level variables and restart the runtime (failure mode FM-31).
//
// What NO_PROXY must spare follows kubeadm's preflight checks (HTTPProxy: the API server;
// HTTPProxyCIDR: the first address of the Service and Pod CIDRs, "Make sure that Pod and
// Services IP ranges specified correctly as exceptions in proxy configuration"), plus
// the in-cluster suffix `.cluster.local` (KubeOne adds it to noProxy by itself, beside the
// loopback and the pod and Service subnets: docs.kubermatic.com, KubeOne proxy guide),
// `.svc` for the short in-cluster names, and the node's own address. AKS, whose managed
// proxy feature excludes Windows node pools, likewise adds its own entries to the
// user's noProxy (effectiveNoProxy, learn.microsoft.com "HTTP proxy support in AKS").
type hostProxy struct{}

func (hostProxy) Spec() Spec {
	return Spec{ID: "HOST-PROXY", Title: "the container runtime gets the node's proxy, and NO_PROXY spares the cluster's addresses",
		FM: []string{"FM-31"}, Reads: []evidence.Ref{evidence.Proxy, evidence.WindowsServices, evidence.ClusterNodes,
			evidence.ClusterConfig, evidence.ClusterServices, evidence.Pods, evidence.Events, evidence.KubeletLog}}
}

// consumer is one program whose environment the probe works out.
type consumer struct {
	name    string
	eff     decode.ProxySettings
	runtime bool // containerd or docker: what pulls images
}

func (hostProxy) Check(c C) Finding {
	p, path, bad := need(c, evidence.Proxy)
	if bad != nil {
		return c.notCollected(path, bad)
	}
	cites := []string{path}
	machine := p.MachineSettings()
	consumers, sources, svcCited := proxyConsumers(c, p, machine)
	if svcCited {
		cites = append(cites, c.Path(evidence.WindowsServices))
	}
	var runtimes, missing []string
	for _, k := range consumers {
		if k.runtime {
			runtimes = append(runtimes, k.name)
			if !k.eff.Set() {
				missing = append(missing, k.name)
			}
		}
	}
	targets, tcites := proxyTargets(c, p)
	if len(sources) == 1 && p.WinHTTPProxy != "" && len(missing) > 0 {
		// WinHTTP alone is often there for Windows Update (WSUS) while registries are
		// reached directly: a failure only when pulls do fail on the network.
		seen, more := pullFailures(c)
		if len(seen) == 0 {
			return c.Warn(fmt.Sprintf("WinHTTP has the proxy %s, which %s ignores (Go programs read only the environment); no image pull failed on the network",
				p.WinHTTPProxy, strings.Join(missing, " and ")), cites...).
				With("if registries are reached only through that proxy, give the runtime the machine-level variables (the fix)").
				WithFix(proxyFix(c, p, consumers, missing, targets))
		}
		return c.Fail(fmt.Sprintf("image pulls fail on the network and %s does not get the WinHTTP proxy %s", strings.Join(missing, " and "), p.WinHTTPProxy),
			append(cites, more...)...).With(seen...).
			With("Go programs (containerd, dockerd, the kubelet) read only HTTP_PROXY/HTTPS_PROXY/NO_PROXY from their environment, never WinHTTP").
			WithFix(proxyFix(c, p, consumers, missing, targets))
	}
	if len(sources) > 0 && len(missing) > 0 {
		f := c.Fail(fmt.Sprintf("a proxy is configured (%s) but %s does not get it", strings.Join(sources, "; "), strings.Join(missing, " and ")), cites...).
			With("Go programs (containerd, dockerd, the kubelet) read only HTTP_PROXY/HTTPS_PROXY/NO_PROXY from their environment: the machine-level variables or the service's own Environment",
				"image pulls from registries outside the network fail until the runtime is given the proxy and restarted")
		return f.WithFix(proxyFix(c, p, consumers, missing, targets))
	}
	if len(runtimes) == 0 && !machine.Set() && len(sources) > 0 {
		return c.Warn(fmt.Sprintf("a proxy is configured (%s), but neither the machine-level variables nor a containerd or docker service carry it", strings.Join(sources, "; ")), cites...).
			With("the runtime is not a service here (rke2 or a process): check the environment it is started with")
	}
	// Every program that has a proxy must leave the cluster's own addresses out of it.
	if !machine.Set() && !anySet(consumers) {
		return noProxyConfigured(c, p, cites)
	}
	cites = append(cites, tcites...)
	var details, gaps []string
	// A program that only inherits the machine-level variables is judged with them.
	checked := []consumer{{name: "the machine-level variables (every service)", eff: machine}}
	for _, k := range consumers {
		if k.eff != machine {
			checked = append(checked, k)
		}
	}
	for _, k := range checked {
		if !k.eff.Set() {
			continue
		}
		var lacks []string
		for _, t := range targets {
			if proxied(k.eff, t.host) {
				lacks = append(lacks, t.what)
			}
		}
		if len(lacks) > 0 {
			gaps = append(gaps, fmt.Sprintf("%s send %s through the proxy", k.name, strings.Join(lacks, ", ")))
			details = append(details, fmt.Sprintf("%s: NO_PROXY=%q", k.name, k.eff.NoProxy))
		}
	}
	if len(gaps) > 0 {
		entries := unspared(machineOr(machine, consumers), targets)
		return c.Fail(fmt.Sprintf("NO_PROXY lacks the cluster's own addresses: %s", gaps[0]), cites...).With(gaps[1:]...).With(details...).
			With("add: "+strings.Join(entries, ","),
				"kubeadm's preflight warns of the same: \"Make sure that Pod and Services IP ranges specified correctly as exceptions in proxy configuration\"").
			WithFix(proxyFix(c, p, consumers, nil, targets))
	}
	f := c.Pass(fmt.Sprintf("the runtime gets the proxy %s and NO_PROXY spares the %d cluster address(es) checked", firstProxy(machine, consumers), len(targets)), cites...)
	if len(targets) == 0 {
		f = f.With("no cluster address was known to check NO_PROXY against (no cluster-config.json, services.json or API server)")
	}
	return f.With("a runtime started before the variables were set does not see them until restarted: Restart-Service containerd")
}

// proxyConsumers works out each runtime and kubelet service's environment and where a
// proxy is configured. svcCited tells whether services.json (nssm's variables) was read.
func proxyConsumers(c C, p decode.Proxy, machine decode.ProxySettings) (out []consumer, sources []string, svcCited bool) {
	svcs, svcOK := optional(c, evidence.WindowsServices)
	if machine.Set() {
		sources = append(sources, "machine-level variables "+machine.Proxy())
	}
	if u := p.UserSettings(); u.Set() {
		sources = append(sources, "user-level variables "+u.Proxy()+" (only that account sees them, no service does)")
	}
	if p.WinHTTPProxy != "" {
		sources = append(sources, "WinHTTP proxy "+string(p.WinHTTPProxy)+" (Go programs ignore it)")
	}
	for _, s := range p.Services {
		name := strings.ToLower(string(s.Name))
		own := s.Settings()
		if svcOK {
			for _, row := range svcs {
				if strings.EqualFold(row.Name, name) && len(row.AppEnvironmentExtra) > 0 {
					own = decode.ProxyService{Environment: row.AppEnvironmentExtra}.Settings().Over(own)
					svcCited = true
				}
			}
		}
		if own.Set() {
			sources = append(sources, name+"'s own environment "+own.Proxy())
		}
		out = append(out, consumer{name: name, eff: own.Over(machine), runtime: name == "containerd" || name == "docker"})
	}
	return out, sources, svcCited
}

func anySet(ks []consumer) bool {
	for _, k := range ks {
		if k.eff.Set() {
			return true
		}
	}
	return false
}

func firstProxy(machine decode.ProxySettings, ks []consumer) string {
	for _, k := range ks {
		if k.runtime && k.eff.Set() {
			return k.eff.Proxy()
		}
	}
	return machine.Proxy()
}

// machineOr is the machine-level settings, or the first program's own when the machine
// has none: what the fix writes NO_PROXY from.
func machineOr(machine decode.ProxySettings, ks []consumer) decode.ProxySettings {
	if machine.Set() {
		return machine
	}
	for _, k := range ks {
		if k.eff.Set() {
			return k.eff
		}
	}
	return machine
}

// unspared are the NO_PROXY entries the targets that s sends through the proxy need.
func unspared(s decode.ProxySettings, targets []proxyTarget) []string {
	var out []string
	for _, t := range targets {
		if proxied(s, t.host) && !slices.Contains(out, t.entry) {
			out = append(out, t.entry)
		}
	}
	return out
}

// proxied applies Go's own proxy rules: does a request to host (a name or an IP, plain
// or https) go through the proxy under these settings?
func proxied(s decode.ProxySettings, host string) bool {
	fn := (&httpproxy.Config{HTTPProxy: s.HTTP, HTTPSProxy: s.HTTPS, NoProxy: s.NoProxy}).ProxyFunc()
	for _, scheme := range []string{"http", "https"} {
		if u, err := fn(&url.URL{Scheme: scheme, Host: host}); err == nil && u != nil {
			return true
		}
	}
	return false
}
