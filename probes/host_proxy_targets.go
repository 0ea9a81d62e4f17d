package probes

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// proxyTarget is one cluster address NO_PROXY must spare: host is what a request names
// (host or host:port), entry what to add to NO_PROXY for it.
type proxyTarget struct{ what, host, entry string }

// proxyTargets are the cluster's own addresses the evidence names, each with its source.
func proxyTargets(c C, p decode.Proxy) ([]proxyTarget, []string) {
	var out []proxyTarget
	var cites []string
	if api := string(p.APIServer); api != "" && !strings.Contains(api, decode.RedactedUserinfo) {
		if u, err := url.Parse(api); err == nil && u.Host != "" {
			out = append(out, proxyTarget{"the API server " + u.Host, u.Host, u.Hostname()})
		}
	}
	cfg, cfgOK := optional(c, evidence.ClusterConfig)
	svcIP := ""
	if svcs, ok := optional(c, evidence.ClusterServices); ok {
		for _, s := range svcs {
			if s.Namespace == "default" && s.Name == "kubernetes" && s.Spec.ClusterIP != "" {
				svcIP = s.Spec.ClusterIP
				cites = append(cites, evidence.PathServices)
			}
		}
	}
	if cfgOK && cfg.ServiceCIDR != "" {
		cidr := strings.TrimSpace(strings.Split(cfg.ServiceCIDR, ",")[0])
		if svcIP == "" {
			svcIP = firstAddr(cidr)
		}
		if svcIP != "" {
			out = append(out, proxyTarget{"the kubernetes Service " + svcIP + " (Service CIDR " + cidr + ")", net.JoinHostPort(svcIP, "443"), cidr})
			cites = append(cites, evidence.PathClusterConfig)
		}
	} else if svcIP != "" {
		out = append(out, proxyTarget{"the kubernetes Service " + svcIP, net.JoinHostPort(svcIP, "443"), svcIP})
	}
	if cfgOK && cfg.ClusterCIDR != "" {
		cidr := strings.TrimSpace(strings.Split(cfg.ClusterCIDR, ",")[0])
		if ip := firstAddr(cidr); ip != "" {
			out = append(out, proxyTarget{"the pod network " + cidr, ip, cidr})
			cites = append(cites, evidence.PathClusterConfig)
		}
	}
	out = append(out, proxyTarget{"in-cluster names (.svc)", "kubernetes.default.svc", ".svc"},
		proxyTarget{"in-cluster names (.cluster.local)", "kubernetes.default.svc.cluster.local", ".cluster.local"})
	if nodes, ok := optional(c, evidence.ClusterNodes); ok {
		for _, n := range shownNodes(nodes) {
			if n.Name == c.node {
				if ip := decode.NodeAddress(n, corev1.NodeInternalIP); ip != "" {
					out = append(out, proxyTarget{"the node's own address " + ip, net.JoinHostPort(ip, "10250"), ip})
					cites = append(cites, evidence.PathNodes)
				}
			}
		}
	}
	return out, cites
}

// firstAddr is the CIDR's first host address (kubeadm's HTTPProxyCIDR check asks the
// proxy function about it; the kubernetes Service takes it too).
func firstAddr(cidr string) string {
	pfx, err := netip.ParsePrefix(cidr)
	if err != nil {
		return ""
	}
	return pfx.Masked().Addr().Next().String()
}

// pullNetworkError marks an image pull that failed on the network: Go's dial and TLS
// timeouts, Windows' connect timeout (WSAETIMEDOUT's text) and a failed proxy CONNECT,
// as containerd's and the kubelet's pull errors end.
var pullNetworkError = []string{"i/o timeout", "tls handshake timeout", "proxyconnect tcp",
	"connectex: a connection attempt failed"}

func isPullNetworkError(s string) bool {
	l := strings.ToLower(s)
	if !strings.Contains(l, "pull") {
		return false
	}
	for _, m := range pullNetworkError {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// pullFailures are this node's image pulls that failed on the network: the events of its
// pods and the kubelet's log lines.
func pullFailures(c C) (seen, cites []string) {
	if pods, ok := optional(c, evidence.Pods); ok {
		events, _ := optional(c, evidence.Events)
		for _, pod := range podsBound(c.ev, pods, c.node) {
			for _, e := range eventsAbout(events, pod) {
				if isPullNetworkError(e.Message) {
					seen = append(seen, podID(pod)+": "+e.Message)
					cites = append(cites, evidence.PathEvents)
				}
			}
		}
	}
	if log, ok := optional(c, evidence.KubeletLog); ok {
		sc := bufio.NewScanner(bytes.NewReader(log))
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			if isPullNetworkError(sc.Text()) {
				seen = append(seen, "kubelet.log: "+strings.TrimSpace(sc.Text()))
				cites = append(cites, c.Path(evidence.KubeletLog))
			}
		}
	}
	if len(seen) > 3 {
		seen = append(seen[:3], fmt.Sprintf("... and %d more", len(seen)-3))
	}
	return seen, cites
}

// noProxyConfigured judges a node without any proxy: pass, unless image pulls time out,
// which is what a network that needs a proxy looks like from the node.
func noProxyConfigured(c C, p decode.Proxy, cites []string) Finding {
	seen, more := pullFailures(c)
	cites = append(cites, more...)
	if len(seen) == 0 {
		return c.Pass("no proxy is configured (machine, user, WinHTTP, runtime services) and no image pull failed on the network", cites...)
	}
	return c.Warn(fmt.Sprintf("image pulls fail on the network (%d seen) and no proxy is configured: if this network needs a proxy, set the machine variables", len(seen)), cites...).
		With(seen...).
		WithFix(&Fix{ID: "set-proxy", Title: "If the network needs a proxy: set the machine-level variables and restart the runtime", Kind: Manual, Verify: c.id,
			Commands: proxyCommands("http://<proxy>:<port>", "http://<proxy>:<port>", "localhost,127.0.0.1,.svc,.cluster.local,<service CIDR>,<pod CIDR>,<node subnet>", []string{runtimeName(p)}),
			Notes: []string{"the timeouts may have other causes (a firewall, DNS, the registry itself): check with the network's owner first",
				"kubernetes.io and Microsoft's Docker on Windows docs: machine-level HTTP_PROXY/HTTPS_PROXY, then restart the runtime"}})
}

func runtimeName(p decode.Proxy) string {
	for _, n := range []string{"containerd", "docker"} {
		if _, ok := p.Service(n); ok {
			return n
		}
	}
	return "containerd"
}

// proxyFix gives the runtime the proxy (missing names the runtimes without it) and the
// NO_PROXY entries the targets need: machine-level variables plus each runtime service's
// Environment, then a restart. A value the evidence has only redacted cannot be set by
// the tool: the remedy is then the commands to paste.
func proxyFix(c C, p decode.Proxy, ks []consumer, missing []string, targets []proxyTarget) *Fix {
	machine := p.MachineSettings()
	want := machineOr(machine, ks)
	if !want.Set() {
		want = knownProxy(p, ks)
	}
	entries := unspared(want, targets)
	if len(entries) > 0 {
		want.NoProxy = strings.Trim(strings.Join(append([]string{want.NoProxy}, entries...), ","), ",")
	}
	var services, restart []string
	for _, k := range ks {
		switch {
		case k.runtime:
			services = append(services, k.name)
		case len(entries) > 0 || !machine.Set():
			restart = append(restart, k.name) // the kubelet reads its environment at start too
		}
	}
	title := "Give " + strings.Join(missing, " and ") + " the proxy: machine-level variables and the service's Environment, then restart"
	if len(missing) == 0 {
		title = "Add the cluster's addresses to NO_PROXY (machine level and the runtime's Environment), then restart"
	}
	cmds := proxyCommands(want.HTTP, want.HTTPS, want.NoProxy, services)
	for _, r := range restart {
		cmds = append(cmds, "Restart-Service -Name "+psQuote(r))
	}
	fix := &Fix{ID: "set-proxy", Title: title, Verify: c.id, Commands: cmds, Disruptive: true,
		Impact: "the runtime restarts (as RUNTIME-LEFTOVERS' restart does): pulls under way are retried; drain first if its containers must not restart",
		Notes:  []string{"the Kubernetes and Microsoft docs: machine-level HTTP_PROXY/HTTPS_PROXY/NO_PROXY, then restart the runtime (failure mode FM-31)"}}
	if !want.Set() || strings.Contains(want.HTTP+want.HTTPS, decode.RedactedUserinfo) {
		fix.Kind = Manual
		fix.Notes = append(fix.Notes, "the proxy URL carries credentials (redacted on the node) or is unknown: put the real URL in place of the placeholder")
		fix.Commands = proxyCommands(orPlaceholder(want.HTTP), orPlaceholder(want.HTTPS), want.NoProxy, services)
		return fix
	}
	fix.Kind, fix.Action = NodeScript, "fix-proxy-env"
	fix.Params = map[string]any{"HttpProxy": want.HTTP, "HttpsProxy": want.HTTPS, "NoProxy": want.NoProxy, "Service": services, "Restart": restart}
	fix.Precheck = "the runtime's proxy settings as the evidence shows them"
	return fix
}

func orPlaceholder(s string) string {
	if s == "" || strings.Contains(s, decode.RedactedUserinfo) {
		return "http://<user>:<password>@<proxy>:<port>"
	}
	return s
}

// knownProxy is the proxy configured elsewhere, to give the runtime: another service's,
// the user-level one, or WinHTTP's ("host:port", or "http=host:port;https=host:port").
func knownProxy(p decode.Proxy, ks []consumer) decode.ProxySettings {
	for _, k := range ks {
		if k.eff.Set() {
			return k.eff
		}
	}
	if u := p.UserSettings(); u.Set() {
		return u
	}
	w := string(p.WinHTTPProxy)
	if w == "" {
		return decode.ProxySettings{}
	}
	var s decode.ProxySettings
	for _, part := range strings.Split(w, ";") {
		scheme, hostport, ok := strings.Cut(part, "=")
		switch {
		case !ok:
			s.HTTP, s.HTTPS = "http://"+strings.TrimSpace(part), "http://"+strings.TrimSpace(part)
		case strings.EqualFold(scheme, "http"):
			s.HTTP = "http://" + strings.TrimSpace(hostport)
		case strings.EqualFold(scheme, "https"):
			s.HTTPS = "http://" + strings.TrimSpace(hostport)
		}
	}
	if b := strings.TrimSpace(string(p.WinHTTPBypass)); b != "" && b != "<local>" {
		s.NoProxy = strings.ReplaceAll(strings.ReplaceAll(b, ";<local>", ""), ";", ",")
	}
	return s
}

// proxyCommands is what fix-proxy-env does, as commands to read (or paste).
func proxyCommands(httpP, httpsP, noP string, services []string) []string {
	var out []string
	for _, v := range [][2]string{{"HTTP_PROXY", httpP}, {"HTTPS_PROXY", httpsP}, {"NO_PROXY", noP}} {
		if v[1] != "" {
			out = append(out, "[Environment]::SetEnvironmentVariable('"+v[0]+"', "+psQuote(v[1])+", 'Machine')")
		}
	}
	for _, s := range services {
		var env []string
		for _, v := range [][2]string{{"HTTP_PROXY", httpP}, {"HTTPS_PROXY", httpsP}, {"NO_PROXY", noP}} {
			if v[1] != "" {
				env = append(env, psQuote(v[0]+"="+v[1]))
			}
		}
		out = append(out, "Set-ItemProperty -Path "+psQuote(`HKLM:\SYSTEM\CurrentControlSet\Services\`+s)+" -Name Environment -Type MultiString -Value @("+strings.Join(env, ", ")+")   # its other entries are kept",
			"Restart-Service -Name "+psQuote(s))
	}
	return out
}
