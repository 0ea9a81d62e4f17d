package probes

import (
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// netPlan is the HNS network the node should have, and where that expectation came from.
type netPlan struct {
	name   string // "l2bridge", "cbr0", "vxlan0"
	kind   string // "l2bridge" or "overlay" ("" when unknown)
	source string // the evidence path that says so
}

// cniKind maps a CNI plugin type to the HNS network type it creates.
func cniKind(t string) string {
	switch strings.ToLower(strings.TrimSuffix(t, ".exe")) {
	case "win-bridge", "wincni", "l2bridge", "sdnbridge", "azure-vnet":
		return "l2bridge"
	case "win-overlay", "sdnoverlay":
		return "overlay"
	}
	return ""
}

// configKind is the HNS network type a CNI config makes: its plugin's, its delegate's,
// or for Calico its mode (projectcalico/calico cni-plugin/pkg/install/install_windows.go:
// "vxlan" makes an Overlay network, "windows-bgp" an L2Bridge one).
func configKind(cni decode.CNIConfig) string {
	if isCalico(cni) {
		if strings.EqualFold(cni.Mode, "vxlan") {
			return "overlay"
		}
		return "l2bridge"
	}
	if kind := cniKind(cni.Type); kind != "" {
		return kind
	}
	return cniKind(cni.Delegate)
}

// isCalico: Calico's IPAM hands each node /26 blocks of its IP pools, not spec.podCIDR,
// and programs the routes to other nodes' blocks itself.
func isCalico(cni decode.CNIConfig) bool { return strings.EqualFold(cni.Type, "calico") }

// calicoNode says whether Calico networks this node: by its CNI config, or, where the
// sweep does not find that config (rke2 keeps it in C:\var\lib\rancher\rke2\agent\etc\cni),
// by kube-proxy being told the network "Calico", the name Calico's Windows networks take
// (rancher/rke2 pkg/windows/calico.go OverlayNetName; Calico install_windows.go).
func (c C) calicoNode() (source string, ok bool) {
	if cni, ok := optional(c, evidence.CNIConfig); ok {
		return c.Path(evidence.CNIConfig), isCalico(cni)
	}
	if name, src := c.kubeProxyNetwork(); strings.EqualFold(name, "Calico") {
		return src, true
	}
	// kube-proxy down too: the network Calico left on the node still names it.
	if nets, ok := optional(c, evidence.HNSNetworks); ok {
		if _, found := decode.FindNetwork(nets, "Calico"); found {
			return c.Path(evidence.HNSNetworks), true
		}
	}
	return "", false
}

// plan derives the expected network from the CNI config, else from kube-proxy's
// --network-name / KUBE_NETWORK.
func (c C) plan() (netPlan, bool) {
	if cni, ok := optional(c, evidence.CNIConfig); ok {
		if isAntrea(cni) {
			// the conflist is named "antrea"; the network antrea-agent creates is not
			return netPlan{antreaNetwork, "transparent", c.Path(evidence.CNIConfig)}, true
		}
		if isVPCCNI(cni) {
			// aws/amazon-vpc-cni-plugins names its network "<conf name>br<ENI MAC without
			// colons>" (vpcbr0a3f915c2eb7), L2Bridge on the ENI's subnet; the
			// containerd-era bootstrap's vpc-bridge creates the same "vpcbr<MAC>"
			// (ConfigureHNS, Type L2Bridge) and sets KUBE_NETWORK to it.
			name := strings.ToLower(cni.Name) + "br"
			if nets, ok := optional(c, evidence.HNSNetworks); ok {
				for _, n := range nets {
					if strings.HasPrefix(strings.ToLower(string(n.Name)), name) {
						name = string(n.Name)
					}
				}
			}
			return netPlan{name, "l2bridge", c.Path(evidence.CNIConfig)}, true
		}
		return netPlan{strings.ToLower(cni.Name), configKind(cni), c.Path(evidence.CNIConfig)}, true
	}
	// Without a CNI config (another collector's bundle seldom has one): the network
	// kube-proxy is told to use where HNS has it, else the network HNS gave this node's
	// podCIDR (what the CNI made), else kube-proxy's name alone.
	nets, haveNets := optional(c, evidence.HNSNetworks)
	name, src := c.kubeProxyNetwork()
	if n, found := decode.FindNetwork(nets, name); name != "" && haveNets && found {
		return netPlan{strings.ToLower(name), hnsKind(n), src}, true
	}
	if n, ok := c.podCIDRNetwork(nets); ok {
		return netPlan{strings.ToLower(string(n.Name)), hnsKind(n), c.Path(evidence.HNSNetworks)}, true
	}
	if name != "" {
		return netPlan{strings.ToLower(name), "", src}, true
	}
	return netPlan{}, false
}

// hnsKind is an HNS network's type as a plan's kind ("" for the others).
func hnsKind(n decode.HNSNetwork) string {
	if k := n.Kind(); k == "overlay" || k == "l2bridge" {
		return k
	}
	return ""
}

// podCIDRNetwork is the one HNS network whose subnet is the node's podCIDR.
func (c C) podCIDRNetwork(nets []decode.HNSNetwork) (decode.HNSNetwork, bool) {
	nodes, err := evidence.Get(c.ev, "", evidence.ClusterNodes)
	if err != nil || len(nets) == 0 {
		return decode.HNSNetwork{}, false
	}
	self, err := decode.FindNode(nodes, c.node)
	if err != nil || self.Spec.PodCIDR == "" {
		return decode.HNSNetwork{}, false
	}
	var match []decode.HNSNetwork
	for _, n := range nets {
		if slices.Contains(n.Prefixes(), self.Spec.PodCIDR) {
			match = append(match, n)
		}
	}
	if len(match) != 1 {
		return decode.HNSNetwork{}, false
	}
	return match[0], true
}

// kubeProxyNetwork finds the network name kube-proxy is told to use: --network-name on its
// command line, KUBE_NETWORK in its service environment, or the name its log complains of.
func (c C) kubeProxyNetwork() (name, source string) {
	if procs, ok := optional(c, evidence.Processes); ok {
		if p, ok := decode.FindProcess(procs, "kube-proxy"); ok {
			if v := decode.CommandFlags(string(p.CommandLine))["network-name"]; v != "" {
				return v, c.Path(evidence.Processes)
			}
		}
	}
	if svcs, ok := optional(c, evidence.WindowsServices); ok {
		if s, ok := decode.FindService(svcs, "kube-proxy", "kubeproxy"); ok {
			if v := decode.CommandFlags(s.PathName + " " + s.AppParameters)["network-name"]; v != "" {
				return v, c.Path(evidence.WindowsServices)
			}
			for _, e := range s.AppEnvironmentExtra {
				if k, v, ok := strings.Cut(e, "="); ok && strings.EqualFold(k, "KUBE_NETWORK") && v != "" {
					return v, c.Path(evidence.WindowsServices)
				}
			}
			if v := aksKubeNetwork(s); v != "" {
				return v, c.Path(evidence.WindowsServices)
			}
		}
	}
	// A kube-proxy DaemonSet pod is told its network in the pod spec: KUBE_NETWORK in the
	// container env (sig-windows-tools hostprocess/flannel/kube-proxy/kube-proxy.yml sets
	// KUBE_NETWORK=flannel.4096 and no --network-name), or --network-name in its args.
	if d, ok := c.componentPod(kubeProxyComponent()); ok {
		for _, ctr := range d.pod.Spec.Containers {
			if ctr.Name != d.container {
				continue
			}
			for _, e := range ctr.Env {
				if strings.EqualFold(e.Name, "KUBE_NETWORK") && e.Value != "" {
					return e.Value, evidence.PathPods
				}
			}
			if v := decode.Flags(append(append([]string{}, ctr.Command...), ctr.Args...))["network-name"]; v != "" {
				return v, evidence.PathPods
			}
			// sig-windows-tools hostprocess/calico/kube-proxy/start.ps1 sets
			// $env:KUBE_NETWORK = "Calico" itself; its image is tagged *-calico-hostprocess.
			if strings.HasSuffix(ctr.Image, "-calico-hostprocess") {
				return "Calico", evidence.PathPods
			}
		}
	}
	if log, ok := optional(c, evidence.KubeProxyLog); ok {
		if v := networkFromLog(string(log)); v != "" {
			return v, c.Path(evidence.KubeProxyLog)
		}
	}
	return "", ""
}

// networkFromLog finds the network name in the last line where the winkernel proxier
// names it (kubeProxyNetworkLog).
func networkFromLog(log string) string {
	name, _, _ := kubeProxyNetworkLog(log)
	return name
}

// kubeProxyNetworkLog reads the last line where kube-proxy names its network: the
// network it could not find, "Unable to find HNS Network specified by cbr0" (v1.15 to
// v1.20, "Hns" in older builds) or, from v1.21, hnsNetworkName="cbr0" with
// err="Network name \"cbr0\" not found", or rancher/wins' wrapper on RKE2, "could not get
// HNS network Calico via v2 api: ..." (pkg/server/apis hnsService.GetNetwork); or the
// network it loaded, "Hns Network loaded with info = {l2bridge <id> L2Bridge []}" (V(1);
// hnsNetworkInfo's first field is its name, pkg/proxy/winkernel/proxier.go). missing says
// the last such line is one of not finding it, and line is that line. On an SDN-script
// node the name is only there: start-kubeproxy.ps1 sets $env:KUBE_NETWORK in its window,
// not on the command line.
func kubeProxyNetworkLog(log string) (name string, missing bool, line string) {
	for _, l := range strings.Split(log, "\n") {
		if v, miss, ok := networkOfLine(l); ok {
			name, missing, line = v, miss, strings.TrimSpace(l)
		}
	}
	return name, missing, line
}

// networkOfLine is one line's network name and whether the line says it is missing.
func networkOfLine(line string) (name string, missing, ok bool) {
	lower := strings.ToLower(line)
	if i := strings.Index(lower, "hns network loaded"); i >= 0 {
		// %v prints the fields bare, in order; %+v (InfoS) as name:value, in order.
		if _, rest, ok := strings.Cut(line[i:], "{"); ok {
			rest, _, _ = strings.Cut(rest, "}")
			f := strings.Fields(rest)
			for _, kv := range f {
				if v, ok := strings.CutPrefix(kv, "name:"); ok {
					f = []string{v}
					break
				}
			}
			if len(f) > 0 && !strings.Contains(f[0], ":") {
				return f[0], false, true
			}
		}
		return "", false, false
	}
	for _, lead := range []string{"network specified by ", "could not get hns network "} {
		if i := strings.Index(lower, lead); i >= 0 {
			if f := strings.Fields(line[i+len(lead):]); len(f) > 0 {
				return strings.TrimRight(f[0], ".,\"'"), true, true
			}
		}
	}
	if !strings.Contains(lower, "not found") {
		return "", false, false
	}
	if _, rest, ok := strings.Cut(line, `hnsNetworkName="`); ok {
		if v, _, ok := strings.Cut(rest, `"`); ok && v != "" {
			return v, true, true
		}
	} else if _, rest, ok := strings.Cut(line, `Network name \"`); ok {
		if v, _, ok := strings.Cut(rest, `\"`); ok && v != "" {
			return v, true, true
		}
	}
	return "", false, false
}

// isHostOnly says whether a network is one Windows or Docker creates on its own (nat,
// ICS, the External bridge SDN scripts make first), not a pod network.
func isHostOnly(n decode.HNSNetwork) bool {
	switch n.Kind() {
	case "nat", "ics":
		return true
	}
	// "ext": AKS's placeholder L2Bridge (192.168.255.0/30) that keeps the vSwitch up
	// (Azure/AgentBaker staging/cse/windows/kubernetesfunc.ps1 New-ExternalHnsNetwork).
	return strings.EqualFold(string(n.Name), "external") || strings.EqualFold(string(n.Name), "nat") || strings.EqualFold(string(n.Name), "ext")
}
