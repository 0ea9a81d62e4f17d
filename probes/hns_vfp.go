package probes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// hnsVFPPorts (HNS-VFP-PORTS): no local HNS endpoint's VFP port is blocked (FM-21).
//
// microsoft/SDN networkhealth.ps1 (Kubernetes/windows/debug/networkmonitor @ 242fb0c)
// EndpointVfpPortStateTest: for every endpoint that is not remote, the port of its
// "Endpoint Port" allocator, `vfpctrl.exe /port <guid> /get-port-state`; output without
// "Blocked : FALSE" is "VFP port state for the POD with IP address ... is in invalid
// state Blocked", resolution "Delete and recreate the POD". SdnDiagnostics' health
// table says why a port is blocked: "due to lack of VNET / ACL policies" (PortBlocked).
// Unlike networkhealth, a port vfpctrl could not read is not called blocked: the
// snippet keeps vfpctrl's own line and this probe warns with it. (networkhealth also
// tests the host and external ports, but never reads their state, so that test cannot
// fail; they are not collected here.)
type hnsVFPPorts struct{}

func (hnsVFPPorts) Spec() Spec {
	return Spec{ID: "HNS-VFP-PORTS", Layouts: allLayouts(), Title: "no local HNS endpoint's VFP port is blocked",
		FM: []string{"FM-21"}, Reads: []evidence.Ref{evidence.VFPPorts, evidence.Pods, evidence.IPAddresses}}
}

func (hnsVFPPorts) Check(c C) Finding {
	v, path, bad := need(c, evidence.VFPPorts)
	if bad != nil {
		if why := c.ev.CollectError(path); strings.Contains(why, "vfpctrl.exe is not on this node") {
			return c.Skip("vfpctrl.exe is not on this node: the VFP port state cannot be read", path).
				With("vfpctrl ships with the Hyper-V virtual switch's VFP extension; a node without it cannot be judged here")
		}
		return c.notCollected(path, bad)
	}
	cites := []string{path}
	owners := map[string]corev1.Pod{} // pod IP -> pod on this node
	if pods, ok := optional(c, evidence.Pods); ok {
		cites = append(cites, evidence.PathPods)
		for _, p := range podsBound(c.ev, pods, c.node) {
			for _, ip := range p.Status.PodIPs {
				owners[ip.IP] = p
			}
		}
	}
	own := map[string]bool{} // the node's addresses: the l2bridge host vNIC's endpoint holds one
	if ips, ok := optional(c, evidence.IPAddresses); ok {
		for _, ip := range ips {
			own[string(ip.IPAddress)] = true
		}
	}
	var blocked, unread, cmds []string
	hostBlocked := false
	for _, p := range v.Ports {
		who := "no pod of this node has this address (see HNS-ENDPOINTS)"
		pod, owned := owners[string(p.IPAddress)]
		switch {
		case owned:
			who = "pod " + pod.Namespace + "/" + pod.Name
		case own[string(p.IPAddress)]:
			who = "the node's own endpoint (its host vNIC on the pod network)"
			hostBlocked = hostBlocked || p.IsBlocked()
		}
		line := fmt.Sprintf("endpoint %s (%s), VFP port %s: %s", p.EndpointId, p.IPAddress, p.Port, who)
		switch {
		case p.IsBlocked():
			blocked = append(blocked, line+": Blocked : TRUE")
			if owned {
				cmds = append(cmds, "kubectl delete pod -n "+pod.Namespace+" "+pod.Name)
			}
		case !p.Known():
			unread = append(unread, line+": "+string(p.Error))
		}
	}
	sort.Strings(cmds)
	omitted := ""
	if n := int(v.LocalEndpoints) - len(v.Ports); n > 0 {
		omitted = fmt.Sprintf("%d more local endpoint(s) not read (the snippet reads at most 110)", n)
	}
	switch {
	case len(blocked) > 0:
		f := c.Fail(fmt.Sprintf("%d local endpoint(s) have a blocked VFP port: their pods have no network", len(blocked)), cites...).
			With(blocked...).
			With("VFP blocks a port that lacks its policies (SdnDiagnostics: \"due to lack of VNET / ACL policies\"); networkhealth's resolution: delete and recreate the pod")
		if hostBlocked {
			f = f.With("the host vNIC's port is blocked: networkhealth's resolution for the host port is to delete and recreate the HNS network (drain the node first; SDN start.ps1's CleanupOldNetwork removes the network and all containers)")
		}
		if len(cmds) > 0 {
			f = f.WithFix(&Fix{ID: "recreate-pods", Title: "Delete the pods with a blocked VFP port so their controllers recreate them", Kind: Manual,
				Commands: cmds, Verify: c.id,
				Impact: "those pods restart; a pod without a controller (no Deployment, DaemonSet, ...) is gone until recreated by hand",
				Notes: []string{"check after: vfpctrl /port <new endpoint's port> /get-port-state shows Blocked : FALSE",
					"if new pods' ports are blocked too, HNS is not programming VFP: see HNS-HEALTH and HNS-EVENTS; networkhealth's resolution for a blocked host port is to recreate the HNS network (drain first)"}})
		}
		return f.With(unread...)
	case len(unread) > 0:
		return c.Warn(fmt.Sprintf("vfpctrl could not read %d of %d local endpoint port(s)", len(unread), len(v.Ports)), cites...).
			With(unread...).
			With("an endpoint whose port VFP does not know is out of step with HNS: check it with vfpctrl /list-vmswitch-port and HNS-ENDPOINTS")
	case len(v.Ports) == 0:
		return c.Pass("no local HNS endpoint: no VFP port to judge", cites...)
	}
	f := c.Pass(fmt.Sprintf("none of %d local endpoint port(s) is blocked", len(v.Ports)), cites...)
	if omitted != "" {
		f = f.With(omitted)
	}
	return f
}
