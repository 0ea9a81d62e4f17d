package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// kubeProxyNetwork (HNS-KPROXY-NET): kube-proxy is pointed at an HNS network that
// exists (the SDN start-kubeproxy.ps1 defaults to cbr0 while start.ps1 creates l2bridge).
type kubeProxyNetwork struct{}

func (kubeProxyNetwork) Spec() Spec {
	return Spec{ID: "HNS-KPROXY-NET", Layouts: layoutsExcept(LayoutAntrea, LayoutEKS, LayoutWMCO, LayoutEKSBridge), Title: "kube-proxy uses an existing HNS network", FM: []string{"FM-06"},
		Reads: []evidence.Ref{evidence.HNSNetworks, evidence.Processes, evidence.WindowsServices, evidence.KubeProxyLog, evidence.Pods, evidence.CNIConfig,
			evidence.ClusterNodes}} // the podCIDR, for the network plan without a CNI config (netplan.go)
}

func (kubeProxyNetwork) Check(c C) Finding {
	nets, netPath, bad := need(c, evidence.HNSNetworks)
	if bad != nil {
		return *bad
	}
	name, src := c.kubeProxyNetwork()
	if name == "" {
		if _, antrea := c.antreaProxies(); antrea {
			if procs, ok := optional(c, evidence.Processes); ok {
				if _, running := decode.FindProcess(procs, "kube-proxy"); !running {
					return c.Skip("no kube-proxy on this Antrea node (AntreaProxy does its work): no HNS network name to check", netPath)
				}
			}
		}
		return c.Skip("kube-proxy's network name is not in the evidence", netPath).With("looked for --network-name on its command line, KUBE_NETWORK in its service environment, and the winkernel log line")
	}
	cites := []string{netPath, src}
	if n, ok := decode.FindNetwork(nets, name); ok {
		if f, said := c.logSaysMissing(name, cites); said {
			return f
		}
		return c.Pass(fmt.Sprintf("kube-proxy uses HNS network %s (%s), which exists", n.Name, n.Type), cites...)
	}
	f := c.Fail(fmt.Sprintf("kube-proxy is pointed at HNS network %q, which does not exist", name), cites...).With("expected: one of "+netList(nets),
		"actual: "+name+" (from "+src+")",
		"kube-proxy logs 'Unable to find Hns Network specified by "+name+"'; Services do not work on this node")
	target := ""
	if plan, ok := c.plan(); ok {
		if _, exists := decode.FindNetwork(nets, plan.name); exists {
			target = plan.name
		}
	}
	if target == "" {
		for _, n := range nets {
			if !isHostOnly(n) {
				target = string(n.Name)
				break
			}
		}
	}
	if target != "" {
		f.Fix = kubeProxyNetworkFix(c, c.id, target)
	}
	ms, _, _ := c.scanLogs(false, evidence.KubeProxyLog)
	lines, paths := logSupport(c.id, ms)
	return f.With(lines...).Citing(paths...)
}

func kubeProxyNetworkFix(c C, verify, network string) *Fix {
	// A DaemonSet pod takes its network from the pod template: change it there, and the
	// DaemonSet rolls the pod (sig-windows-tools hostprocess/flannel/kube-proxy/kube-proxy.yml).
	if d, ok := c.componentPod(kubeProxyComponent()); ok && d.ds != "" {
		return &Fix{
			ID: "kube-proxy-network", Title: fmt.Sprintf("Set KUBE_NETWORK=%s in DaemonSet %s", network, d.ds), Kind: Manual,
			Commands: []string{fmt.Sprintf("kubectl -n %s set env daemonset/%s -c %s KUBE_NETWORK=%s", d.pod.Namespace, d.ds, d.container, network)},
			Notes:    []string{"the DaemonSet replaces its pods on every Windows node it runs on; each must have the same network name"},
			Impact:   "Service traffic on those nodes pauses while kube-proxy restarts",
			Verify:   verify,
		}
	}
	svcs, _ := optional(c, evidence.WindowsServices)
	if s, ok := decode.FindService(svcs, "kube-proxy", "kubeproxy"); ok {
		return &Fix{
			ID: "kube-proxy-network", Title: fmt.Sprintf("Point kube-proxy at HNS network %s and restart it", network),
			Kind: NodeScript, Action: "fix-kube-proxy-network",
			Params: map[string]any{"Service": s.Name, "Network": network},
			Commands: []string{
				fmt.Sprintf("nssm set %s AppEnvironmentExtra KUBE_NETWORK=%s   # via the service's registry Parameters", s.Name, network),
				"Restart-Service -Name " + psQuote(s.Name) + " -Force",
			},
			Impact:   "Service traffic on this node pauses while kube-proxy restarts (seconds)",
			Verify:   verify,
			Precheck: "kube-proxy still pointed at a missing network",
		}
	}
	return &Fix{
		ID: "kube-proxy-network", Title: fmt.Sprintf("Restart kube-proxy on HNS network %s", network), Kind: Manual,
		Commands: []string{fmt.Sprintf(".\\start-kubeproxy.ps1 -NetworkName %s   # in C:\\k, in place of the running kube-proxy window", network)},
		Notes:    []string{"kube-proxy runs as a foreground process here; register it as a service (SVC-REBOOT) so the tool can fix it next time"},
		Verify:   verify,
	}
}

// logSaysMissing: the network exists, but kube-proxy's last word on it is that it cannot
// find it. The log wins over the name match: kube-proxy then programs nothing
// (kubernetes/kubernetes#79515: kube-proxy v1.15.0 logged "Unable to find HNS Network
// specified by cbr0" every second for a cbr0 that existed, and NodePorts on the node did
// not answer; v1.14.1 worked on the same node). From v1.15 kube-proxy waits for the
// network and logs "Hns Network loaded" once it finds it (kubernetes/kubernetes#78612),
// so a last line of not finding it is not a start-up race that ended.
func (c C) logSaysMissing(name string, cites []string) (Finding, bool) {
	log, ok := optional(c, evidence.KubeProxyLog)
	if !ok {
		return Finding{}, false
	}
	logged, missing, line := kubeProxyNetworkLog(string(log))
	if !missing || !strings.EqualFold(logged, name) {
		return Finding{}, false
	}
	path := c.Path(evidence.KubeProxyLog)
	f := c.Fail(fmt.Sprintf("kube-proxy's log says it cannot find HNS network %q, which exists: it programs no Service on this node", name), append(cites, path)...).
		With("its last line about the network: "+clip(line, 300),
			"kubernetes/kubernetes#79515: kube-proxy v1.15.0 logged this for a network that existed (v1.14.1 worked on the same node); a kube-proxy that started before the network and never saw it does the same")
	return f.WithFix(&Fix{ID: "restart-kube-proxy", Title: "Restart kube-proxy so it looks the network up again", Kind: Manual, Verify: c.id,
		Commands: []string{"Restart-Service kube-proxy   # or delete its pod on a HostProcess DaemonSet node; on RKE2: Restart-Service rke2",
			"Get-Content <kube-proxy log> -Tail 20   # expect \"Hns Network loaded\""},
		Notes:  []string{"if it logs the same again on v1.15.0, run a kube-proxy of another release (kubernetes/kubernetes#79515)"},
		Impact: "Service traffic on this node pauses while kube-proxy restarts"}), true
}
