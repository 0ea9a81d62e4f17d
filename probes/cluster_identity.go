package probes

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// netBIOSMax is the length Windows truncates a computer's NetBIOS name (COMPUTERNAME) to.
const netBIOSMax = 15

// hostName (HOST-NAME): the node name and the Windows computer name agree, and fit
// NetBIOS's 15 characters where that matters: a domain-joined host registers in AD under
// the truncated name (so two nodes sharing the first 15 characters collide), gMSA and
// HostProcess containers see the truncated name, and kubelet and kube-proxy must then
// agree on --hostname-override.
type hostName struct{}

func (hostName) Spec() Spec {
	return Spec{ID: "HOST-NAME", Layouts: allLayouts(), Title: "node name fits the Windows computer name", FM: []string{"FM-12", "FM-15"},
		Reads: []evidence.Ref{evidence.Host, evidence.Processes, evidence.WindowsServices, evidence.Pods}}
}

// hostnameOverride is the --hostname-override a component runs with: on its running
// process's command line, else in its service's command line; "" when neither shows one.
func (c C) hostnameOverride(comp component) string {
	procs, _ := optional(c, evidence.Processes)
	if p, ok := decode.FindProcess(procs, comp.processes...); ok {
		if v := decode.CommandFlags(string(p.CommandLine))["hostname-override"]; v != "" {
			return v
		}
	}
	svcs, _ := optional(c, evidence.WindowsServices)
	if s, ok := decode.FindService(svcs, comp.services...); ok {
		return decode.CommandFlags(s.PathName + " " + s.AppParameters)["hostname-override"]
	}
	return ""
}

func (hostName) Check(c C) Finding {
	node := c.node
	host, hostPath, bad := need(c, evidence.Host)
	if bad != nil {
		return *bad
	}
	if bad := c.hostNotShown(host, hostPath, "ComputerName", "DnsHostName", "PartOfDomain"); bad != nil {
		return *bad
	}
	cn := string(host.ComputerName)
	long := len(node) > netBIOSMax
	truncated := node
	if long {
		truncated = node[:netBIOSMax]
	}
	facts := []string{
		fmt.Sprintf("node name %q: %d characters", node, len(node)),
		fmt.Sprintf("ComputerName %q, DNS host name %q, domain-joined %v (%s)", cn, host.DnsHostName, host.PartOfDomain, orNone(string(host.Domain))),
	}
	hostname := osHostname(host)
	facts = append(facts, "the name kube-proxy and the kubelet compute without --hostname-override: "+hostname+
		" (os.Hostname(), the DNS host name, lower-cased by GetHostname)")
	var f Finding
	kubeletName := c.hostnameOverride(kubeletComponent())
	kp := c.componentRunsAs(kubeProxyComponent(), hostname)
	switch {
	case cn != "" && !strings.EqualFold(cn, truncated) && strings.EqualFold(kubeletName, node) && (kp.name == "" || kp.name == strings.ToLower(node)):
		// By design on EKS (Start-EKSBootstrap.ps1 passes the EC2 private DNS name to both
		// the kubelet and kube-proxy) and wherever an installer names the node itself:
		// the ComputerName is not the node name, and nothing depends on it being so.
		proxy := "kube-proxy uses the same override"
		if kp.name == "" {
			proxy = "kube-proxy's command line is not in the evidence (no process, service or pod spec): its --hostname-override must be the same"
		}
		f = c.Pass(fmt.Sprintf("node name %s is the kubelet's --hostname-override; ComputerName %s differs by design", node, cn)).
			With(append(facts, proxy)...)
	case cn != "" && !strings.EqualFold(cn, truncated):
		status := Warn
		summary := fmt.Sprintf("ComputerName %s is not the node name %s", cn, node)
		if long {
			status = Fail
			summary = fmt.Sprintf("node name %s (%d characters) is neither ComputerName %s nor its 15-character truncation", node, len(node), cn)
		}
		f = c.Judge(status, summary).With(append(facts,
			"the kubelet registered under another name (--hostname-override): kube-proxy must use exactly the same override, or it deletes the node's vNICs and HNS endpoints",
			"HostProcess containers and tools that use the host name see the ComputerName, not the node name")...)
	case long && host.PartOfDomain:
		f = c.Fail(fmt.Sprintf("node name %s is %d characters on a domain-joined host: AD knows it as %s", node, len(node), strings.ToUpper(truncated))).With(append(facts, fmt.Sprintf("expected: a node name of at most %d characters on a domain-joined host", netBIOSMax),
			"nodes whose names share the first 15 characters register in AD as the same computer; gMSA credential specs break")...)
	case long:
		f = c.Warn(fmt.Sprintf("node name %s is %d characters: the computer name is cut to %s", node, len(node), strings.ToUpper(truncated))).With(append(facts, "fine until the host joins a domain (or uses gMSA): then AD sees only the first 15 characters")...)
	default:
		f = c.Pass(fmt.Sprintf("node name %s matches ComputerName %s", node, orNone(cn)))
	}
	// kube-proxy or the kubelet under another name than the Node's (FM-15) is what the
	// finding says, unless a long name on a domain-joined host already collides in AD
	// (FM-12): then it is one more line of that.
	for _, judge := range []func(string, string, []string) (Finding, bool){c.kubeletNameFinding, c.proxyNameFinding} {
		if g, ok := judge(node, hostname, facts); ok {
			if !(long && host.PartOfDomain) {
				return g.Citing(hostPath)
			}
			f = f.With("also: " + g.Summary).Citing(g.Evidence...)
			break
		}
	}
	if f.Status == Pass && kp.name != "" {
		f = f.With("kube-proxy runs as " + kp.name + ", the node name (" + kp.from + ")").Citing(kp.path)
	}
	if f.Status >= Warn {
		f.Fix = &Fix{ID: "rename-host", Title: fmt.Sprintf("Give the host a name of at most %d characters that is also the node name", netBIOSMax), Kind: Manual, Verify: c.id,
			Commands: []string{
				"Rename-Computer -NewName <name of at most 15 characters> -Restart   # before the domain join and before the node registers",
				"or keep the names and pass the same --hostname-override=<node name> to the kubelet and kube-proxy",
			},
			Notes: []string{"renaming a registered node means deleting the Node object and letting the kubelet register the new name",
				"sig-windows-tools PrepareNode.ps1 takes -HostnameOverride for the second way"}}
	}
	f = f.Citing(hostPath)
	return f
}

// nodeIP (NODE-IP): the InternalIP the node registered is an address of this host on
// its cluster-facing adapter, not on the Docker NAT switch or an HNS-internal adapter
// (multi-NIC and vSwitch hosts let the kubelet pick the wrong one). The apiserver reaches
// the kubelet (logs, exec) and peers route pod traffic to that IP.
type nodeIP struct{}

func (nodeIP) Spec() Spec {
	return Spec{ID: "NODE-IP", Layouts: allLayouts(), Title: "node InternalIP is the host's cluster address", FM: []string{"FM-33"},
		Reads: []evidence.Ref{evidence.ClusterNodes, evidence.IPAddresses, evidence.KubeletLog}}
}

// internalAdapter says why an address is not a cluster-facing one ("" if it may be).
func internalAdapter(a decode.IPAddress, podCIDR string) string {
	alias := strings.ToLower(string(a.InterfaceAlias))
	ip, err := netip.ParseAddr(string(a.IPAddress))
	switch {
	case err != nil:
		return "not an IP address"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast():
		return "link-local (APIPA): the adapter never got an address"
	case alias == "vethernet (nat)":
		return "the Docker/WinNAT internal switch"
	case strings.Contains(alias, "hns internal"), strings.HasSuffix(alias, "_ep)"):
		return "an HNS-internal adapter"
	}
	if pfx, ok := prefix(podCIDR); ok && pfx.Contains(ip) {
		return "an address in the node's podCIDR (the host's endpoint on the pod network)"
	}
	return ""
}

func (nodeIP) Check(c C) Finding {
	node := c.node
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	ips, ipPath, bad := need(c, evidence.IPAddresses)
	if bad != nil {
		return *bad
	}
	cites := []string{evidence.PathNodes, ipPath}
	want := decode.NodeAddress(self, corev1.NodeInternalIP)
	cand, candWhy, candPeer := candidateIP(ips, nodes, node, self.Spec.PodCIDR)
	var f Finding
	holder, found := findAddr(ips, want)
	switch {
	case want == "":
		f = c.Fail("the node registered no InternalIP address")
	case !found:
		f = c.Fail(fmt.Sprintf("InternalIP %s is not an address of this host", want)).With("expected: the InternalIP among the host's addresses",
			"actual: "+addrList(ips))
	default:
		why := internalAdapter(holder, self.Spec.PodCIDR)
		if why == "" && (!candPeer || string(cand.IPAddress) == want || sharesPeerSubnet(holder, nodes, node)) {
			f = c.Pass(fmt.Sprintf("InternalIP %s is on %q", want, holder.InterfaceAlias), cites...)
			return f
		}
		if why == "" {
			// Multi-NIC: a usable adapter, but not the one the other nodes share a subnet with.
			f = c.Warn(fmt.Sprintf("InternalIP %s is on %q, which shares no subnet with the other nodes", want, holder.InterfaceAlias)).With("expected: the address in the other nodes' subnet",
				"actual: "+addrList(ips))
			break
		}
		f = c.Fail(fmt.Sprintf("InternalIP %s is on %q: %s", want, holder.InterfaceAlias, why)).With("expected: the address of the cluster-facing adapter (the host NIC, or vEthernet (Ethernet) once an L2Bridge/overlay network took it over)",
			"actual: "+addrList(ips))
	}
	if cand.IPAddress != "" {
		f = f.With(fmt.Sprintf("the right-looking address is %s on %q (%s)", cand.IPAddress, cand.InterfaceAlias, candWhy))
	}
	f = f.With("the apiserver reaches the kubelet (logs, exec, port-forward) and peers route this node's pods through the InternalIP")
	ip := string(cand.IPAddress)
	if ip == "" {
		ip = "<cluster-facing IP>"
	}
	f.Fix = &Fix{ID: "kubelet-node-ip", Title: "Register the node with its cluster-facing IP", Kind: Manual, Verify: c.id,
		Commands: []string{
			fmt.Sprintf("add --node-ip=%s to the kubelet's arguments (nssm get kubelet AppParameters / the start script)", ip),
			"Restart-Service kubelet",
		},
		Notes: []string{"the SDN scripts pass Get-MgmtIpAddress; sig-windows-tools takes NODE_IP",
			"routes to this node's podCIDR on the other nodes use the InternalIP: re-check NET-ROUTES on them afterwards"}}
	ms, _, _ := c.scanLogs(false, evidence.KubeletLog)
	lines, paths := logSupport(c.id, ms)
	return f.Citing(cites...).With(lines...).Citing(paths...)
}

func findAddr(ips []decode.IPAddress, ip string) (decode.IPAddress, bool) {
	for _, a := range ips {
		if ip != "" && string(a.IPAddress) == ip {
			return a, true
		}
	}
	return decode.IPAddress{}, false
}

// candidateIP picks the host address that looks cluster-facing: on a usable adapter, and
// preferably in the subnet of another node's InternalIP (peer true).
func candidateIP(ips []decode.IPAddress, nodes []corev1.Node, self, podCIDR string) (a decode.IPAddress, why string, peer bool) {
	var first decode.IPAddress
	for _, a := range ips {
		if internalAdapter(a, podCIDR) != "" {
			continue
		}
		if n, subnet, ok := peerInSubnet(a, nodes, self); ok {
			return a, fmt.Sprintf("same subnet %s as node %s's InternalIP %s", subnet, n.Name, decode.NodeAddress(n, corev1.NodeInternalIP)), true
		}
		if first.IPAddress == "" {
			first = a
		}
	}
	if first.IPAddress != "" {
		return first, "the first usable adapter address; no other node shares its subnet", false
	}
	return decode.IPAddress{}, "", false
}

// peerInSubnet finds another node whose InternalIP is in a's subnet.
func peerInSubnet(a decode.IPAddress, nodes []corev1.Node, self string) (corev1.Node, netip.Prefix, bool) {
	ip, err := netip.ParseAddr(string(a.IPAddress))
	if err != nil || a.PrefixLength <= 0 || a.PrefixLength > 32 {
		return corev1.Node{}, netip.Prefix{}, false
	}
	subnet := netip.PrefixFrom(ip, int(a.PrefixLength)).Masked()
	for _, n := range nodes {
		peer, err := netip.ParseAddr(decode.NodeAddress(n, corev1.NodeInternalIP))
		if n.Name != self && err == nil && subnet.Contains(peer) {
			return n, subnet, true
		}
	}
	return corev1.Node{}, netip.Prefix{}, false
}

func sharesPeerSubnet(a decode.IPAddress, nodes []corev1.Node, self string) bool {
	_, _, ok := peerInSubnet(a, nodes, self)
	return ok
}

func addrList(ips []decode.IPAddress) string {
	if len(ips) == 0 {
		return "no IPv4 addresses"
	}
	var out []string
	for _, a := range ips {
		out = append(out, fmt.Sprintf("%s/%d on %q", a.IPAddress, a.PrefixLength, a.InterfaceAlias))
	}
	return strings.Join(out, ", ")
}
