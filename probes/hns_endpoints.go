package probes

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hnsEndpoints (HNS-ENDPOINTS): every local HNS endpoint on the pod network belongs to a
// pod bound to this node (FM-14). Failure modes, each from real reports:
//
//   - leaked: no pod owns the endpoint's IP, after a failed pod start
//     (kubernetes/kubernetes#68511) or a pod deletion (antrea-io/antrea#2301,
//     microsoft/Windows-Containers#631). Leaks pin IPs of the node's range and, on
//     overlay, keep stale load balancer backends.
//   - stuck in removal: State 3 with RemoveProcessingStartTime set, HNS began deleting
//     it and never finished (jayunit100/k8sprototypes windows/antrea_debugging, the
//     endpoint antrea-agent logged "timeout deleting HNSEndpoint" for).
//   - duplicate IPs: two local endpoints with one address (microsoft/SDN
//     networkhealth's duplicate-IP check, `Get-HnsEndpoint | Group-Object IPAddress`);
//     traffic to that pod goes to either.
//   - more local endpoints than pods: the count failure mode FM-14 compares.
//
// Addresses that are the node's own (the host vNIC endpoint of l2bridge, 10.x.x.2 on
// cbr0) and kube-proxy's source VIP endpoint on overlay belong to no pod by design and
// are not leaks. Endpoints on host-only networks (nat) serve containers outside
// Kubernetes and are not judged.
type hnsEndpoints struct{}

func (hnsEndpoints) Spec() Spec {
	return Spec{ID: "HNS-ENDPOINTS", Title: "local HNS endpoints belong to this node's pods: none leaked, stuck in removal or duplicated",
		FM: []string{"FM-14"},
		Reads: []evidence.Ref{evidence.HNSEndpoints, evidence.Pods, evidence.HNSNetworks, evidence.IPAddresses,
			evidence.Processes, evidence.WindowsServices, evidence.KubeletLog, evidence.KubeProxyLog, evidence.Events}}
}

// orphan is an endpoint the fix may remove: its ID, address and why.
type orphan struct{ id, ip, why string }

func (hnsEndpoints) Check(c C) Finding {
	eps, epPath, bad := need(c, evidence.HNSEndpoints)
	if bad != nil {
		return c.notCollected(epPath, bad)
	}
	pods, podPath, bad := need(c, evidence.Pods)
	if bad != nil {
		return *bad
	}
	cites := []string{epPath, podPath}
	owners := map[string]string{} // pod IP -> namespace/name
	for _, p := range podsBound(c.ev, pods, c.node) {
		if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, ip := range p.Status.PodIPs {
			owners[ip.IP] = podID(p)
		}
		if p.Status.PodIP != "" {
			owners[p.Status.PodIP] = podID(p)
		}
	}
	own, ownWhy := c.nodeOwnAddresses()
	hostOnly := c.hostOnlyNetworks()
	var local []decode.HNSEndpoint
	for _, e := range eps {
		if e.Local() && !hostOnly[strings.ToLower(string(e.VirtualNetworkName))] {
			local = append(local, e)
		}
	}
	byIP := map[string][]string{}
	var orphans []orphan
	var details []string
	for _, e := range local {
		ip, id := string(e.IPAddress), strings.ToUpper(string(e.ID))
		byIP[ip] = append(byIP[ip], id)
		switch {
		case e.State == 3 && e.RemoveProcessingStartTime != 0:
			orphans = append(orphans, orphan{id, ip, "stuck in removal (State 3, RemoveProcessingStartTime set)"})
		case owners[ip] == "" && own[ip] == "":
			orphans = append(orphans, orphan{id, ip, "leaked: no pod on this node has this IP"})
		}
	}
	var dups []string
	for ip, ids := range byIP {
		if len(ids) > 1 {
			dups = append(dups, fmt.Sprintf("%s on %s", ip, strings.Join(ids, ", ")))
		}
	}
	slices.Sort(dups)
	counted := 0
	for _, e := range local {
		if own[string(e.IPAddress)] == "" {
			counted++
		}
	}
	facts := fmt.Sprintf("%d local endpoint(s) for pods, %d pod IP(s) on this node", counted, len(owners))
	if len(own) > 0 {
		cites = append(cites, ownWhy...)
		facts += "; not counted as pods': " + describeOwn(own)
	}
	for _, o := range orphans {
		details = append(details, fmt.Sprintf("%s %s: %s", o.id, o.ip, o.why))
	}
	for _, d := range dups {
		details = append(details, "duplicate IP "+d)
	}
	if len(orphans) == 0 && len(dups) == 0 {
		return c.Pass(facts, cites...).With(details...)
	}
	summary := fmt.Sprintf("%d orphaned HNS endpoint(s)", len(orphans))
	if len(dups) > 0 {
		summary = fmt.Sprintf("%s, %d duplicated IP(s)", summary, len(dups))
	}
	if c.sourceVIPHidden() && len(dups) == 0 && len(orphans) == 1 && !strings.HasPrefix(orphans[0].why, "stuck") {
		// The evidence shows kube-proxy's service but not its command line (a pasted
		// Get-Service table): the one "leaked" endpoint may be its --source-vip, which
		// has no pod. The evidence cannot tell, so say what to collect.
		return c.Skip(fmt.Sprintf("cannot tell whether endpoint %s %s is kube-proxy's source VIP: its --source-vip is not in the pasted output", orphans[0].id, orphans[0].ip), cites...).With(
			facts, "re-collect services.json as its evidence key says (`wintroubleshoot probes --evidence` gives the command: Win32_Service with PathName and nssm's AppParameters), or run wintroubleshoot against the node")
	}
	f := c.Fail(summary, cites...).With(append([]string{facts,
		"expected: each local endpoint's IP is a running pod's IP on this node (or the node's own address)"}, details...)...)
	if len(dups) > 0 {
		f = f.With("a duplicated IP is not removed automatically: delete the pod that owns the address (its sandbox gets a new endpoint), then re-run")
	}
	if len(orphans) > 0 {
		f = f.WithFix(removeEndpointsFix(c.id, orphans))
	}
	ms, _, _ := c.scanLogs(true, evidence.KubeletLog, evidence.KubeProxyLog)
	lines, paths := logSupport(c.id, ms)
	return f.With(lines...).Citing(paths...)
}

// notCollected says where the endpoint list comes from when it is absent.
func (c C) notCollected(path string, bad *Finding) Finding {
	if bad.Status != Skip {
		return *bad
	}
	return c.Skip("no "+path+": collected by `wintroubleshoot snapshot` and, since this version, the live sweep", path).
		With("evidence collected by an older version lacks it; collect again")
}

// nodeOwnAddresses are the IPs that belong to the node itself rather than to a pod: its
// interface addresses and kube-proxy's --source-vip (the overlay source VIP endpoint).
func (c C) nodeOwnAddresses() (map[string]string, []string) {
	own := map[string]string{}
	var cites []string
	if ips, ok := optional(c, evidence.IPAddresses); ok {
		for _, a := range ips {
			own[string(a.IPAddress)] = "address of " + string(a.InterfaceAlias)
		}
		cites = append(cites, c.Path(evidence.IPAddresses))
	}
	if vip, src := c.sourceVIP(); vip != "" {
		own[vip] = "kube-proxy's source VIP"
		cites = append(cites, src)
	}
	return own, cites
}

// sourceVIPHidden: kube-proxy's source VIP cannot be known from this evidence: its
// service is listed without a command line or environment, and no kube-proxy process
// shows one.
func (c C) sourceVIPHidden() bool {
	if v, _ := c.sourceVIP(); v != "" {
		return false
	}
	ps, psOK := optional(c, evidence.Processes)
	if psOK {
		if _, ok := decode.FindProcess(ps, "kube-proxy.exe"); ok {
			return false
		}
	}
	// Without a process list (another collector's bundle), a service list that does not
	// show kube-proxy's command line cannot tell its source VIP either.
	ss, ok := optional(c, evidence.WindowsServices)
	if !ok {
		return !psOK
	}
	s, ok := decode.FindService(ss, "kube-proxy", "kubeproxy")
	if !ok {
		return !psOK
	}
	return s.AppParameters == "" && len(s.AppEnvironmentExtra) == 0 && s.PathName == ""
}

// sourceVIP is kube-proxy's --source-vip flag (on its command line, or in the nssm
// AppParameters of its service when it is stopped), or the SOURCE_VIP variable the flannel
// scripts hand it through nssm (sig-windows-tools kube-proxy start script).
func (c C) sourceVIP() (string, string) {
	if ps, ok := optional(c, evidence.Processes); ok {
		if p, ok := decode.FindProcess(ps, "kube-proxy.exe"); ok {
			if v := decode.CommandFlags(string(p.CommandLine))["source-vip"]; v != "" {
				return v, c.Path(evidence.Processes)
			}
		}
	}
	if ss, ok := optional(c, evidence.WindowsServices); ok {
		if s, ok := decode.FindService(ss, "kube-proxy", "kubeproxy"); ok {
			if v := decode.CommandFlags(s.AppParameters)["source-vip"]; v != "" {
				return v, c.Path(evidence.WindowsServices)
			}
			for _, kv := range s.AppEnvironmentExtra {
				if v, ok := strings.CutPrefix(kv, "SOURCE_VIP="); ok {
					return v, c.Path(evidence.WindowsServices)
				}
			}
		}
	}
	return "", ""
}

// hostOnlyNetworks names the networks (lower case) whose endpoints are not pods'.
func (c C) hostOnlyNetworks() map[string]bool {
	out := map[string]bool{}
	nets, ok := optional(c, evidence.HNSNetworks)
	if !ok {
		return out
	}
	for _, n := range nets {
		if isHostOnly(n) {
			out[strings.ToLower(string(n.Name))] = true
		}
	}
	return out
}

func describeOwn(own map[string]string) string {
	var out []string
	for ip, why := range own {
		out = append(out, ip+" ("+why+")")
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// removeEndpointsFix removes exactly the endpoints listed, each only if it still has the
// address the preview showed (fix-remove-hns-endpoints checks before removing).
func removeEndpointsFix(verify string, os []orphan) *Fix {
	ids := make([]string, len(os))
	ips := make([]string, len(os))
	cmds := make([]string, len(os))
	for i, o := range os {
		ids[i], ips[i] = o.id, o.ip
		cmds[i] = fmt.Sprintf("Get-HnsEndpoint | ? { $_.ID -eq %s -and $_.IPAddress -eq %s } | Remove-HnsEndpoint   # %s",
			psQuote(o.id), psQuote(o.ip), o.why)
	}
	return &Fix{ID: "remove-hns-endpoints", Title: fmt.Sprintf("Remove %d orphaned HNS endpoint(s) by ID", len(os)),
		Kind: NodeScript, Action: "fix-remove-hns-endpoints", Params: map[string]any{"Id": ids, "IPAddress": ips},
		Commands: cmds, Verify: verify,
		Impact:   "none for running pods: no pod on this node has these addresses",
		Precheck: "each endpoint still exists with the address shown",
		Notes: []string{"if endpoints keep leaking, restart kube-proxy to re-sync remote endpoints and load balancers; " +
			"`Restart-Service hns` is the disruptive last resort (failure mode FM-14)"}}
}
