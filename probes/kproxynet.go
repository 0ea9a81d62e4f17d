package probes

import (
	"fmt"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// KubeProxyNetworkProbe (HNS-KPROXY-NET): kube-proxy is pointed at an HNS network that
// exists (the SDN start-kubeproxy.ps1 defaults to cbr0 while start.ps1 creates l2bridge).
type KubeProxyNetworkProbe struct{}

func (KubeProxyNetworkProbe) ID() string    { return "HNS-KPROXY-NET" }
func (KubeProxyNetworkProbe) Title() string { return "kube-proxy uses an existing HNS network" }
func (KubeProxyNetworkProbe) Needs() []string {
	return []string{collectors.NodeHNSNetworks, collectors.NodeProcesses, collectors.NodeServices,
		collectors.NodeKubeProxyLog, collectors.NodeCNIConfig}
}

func (p KubeProxyNetworkProbe) Check(node string, ev collectors.Evidence) []Finding {
	c := check{p.ID(), node, ev}
	nets, netPath, bad := nodeFile(c, collectors.NodeHNSNetworks, decode.DecodeHNSNetworks)
	if bad != nil {
		return []Finding{*bad}
	}
	name, src := c.kubeProxyNetwork()
	if name == "" {
		f := c.finding(Skip, "kube-proxy's network name is not in the evidence",
			"looked for --network-name on its command line, KUBE_NETWORK in its service environment, and the winkernel log line")
		f.Evidence = []string{netPath}
		return []Finding{f}
	}
	evidence := []string{netPath, src}
	if n, ok := decode.FindNetwork(nets, name); ok {
		f := c.finding(Pass, fmt.Sprintf("kube-proxy uses HNS network %s (%s), which exists", n.Name, n.Type))
		f.Evidence = evidence
		return []Finding{f}
	}
	f := c.finding(Fail, fmt.Sprintf("kube-proxy is pointed at HNS network %q, which does not exist", name),
		"expected: one of "+netList(nets), "actual: "+name+" (from "+src+")",
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
		f.Fix = kubeProxyNetworkFix(c, p.ID(), target)
	}
	f.Evidence = evidence
	return []Finding{f}
}

func kubeProxyNetworkFix(c check, verify, network string) *Fix {
	svcs, _ := optional(c, collectors.NodeServices, decode.DecodeServices)
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
