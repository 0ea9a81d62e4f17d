package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// FM-16: the SDN scripts find the management adapter by name. microsoft/SDN (@ 242fb0c)
// Kubernetes/windows/helper.psm1 Get-MgmtIpAddress and Get-MgmtSubnet take
// `Get-NetAdapter | ? Name -Like "vEthernet ($InterfaceName*" | ? Status -EQ Up`, with
// $InterfaceName "Ethernet" unless told (Kubernetes/flannel/start.ps1 and install.ps1
// -InterfaceName, default "Ethernet"; Kubernetes/windows/start-kubelet.ps1 passes none);
// Get-MgmtSubnet throws "Failed to find a suitable network adapter, check your network
// settings." when none matches. The vSwitch HNS creates names its host vNIC after the NIC
// it is bound to ("vEthernet (<NIC>)"), so a NIC that is not called Ethernet*, or a
// host vNIC of an admin's own vSwitch (microsoft/SDN#300: "vEthernet (REDE INTERNA)"),
// leaves the scripts without an adapter and the pod network is never set up.

// sdnAdapterPattern is helper.psm1's default: Name -Like "vEthernet (Ethernet*".
const sdnAdapterPattern = "vEthernet (Ethernet"

// sdnScripts says whether the node runs the SDN scripts' kubelet: helper.psm1
// Kubelet-Options gives it --cni-conf-dir="c:\k\cni\config", which no other layout uses.
func (c C) sdnScripts() (string, bool) {
	procs, _ := optional(c, evidence.Processes)
	for _, p := range procs {
		if strings.Contains(strings.ToLower(string(p.CommandLine)), `\k\cni\config`) {
			return c.Path(evidence.Processes), true
		}
	}
	svcs, _ := optional(c, evidence.WindowsServices)
	for _, s := range svcs {
		if strings.Contains(strings.ToLower(s.PathName+" "+s.AppParameters), `\k\cni\config`) {
			return c.Path(evidence.WindowsServices), true
		}
	}
	return "", false
}

// adapterHint names FM-16 as the cause of a missing pod network: the node runs the SDN
// scripts, no Up adapter matches their pattern, and the adapter holding the node's IP is
// named otherwise. It returns the cause and the evidence it read; "" when the adapters
// do not show FM-16 (or were not collected).
func (c C) adapterHint(nodeIP string) (string, []string) {
	src, ok := c.sdnScripts()
	if !ok {
		return "", nil
	}
	ni, ok := optional(c, evidence.NetInterfaces)
	if !ok {
		return "", nil
	}
	var names []string
	for _, a := range ni.Adapters {
		up := a.Status == "" || strings.EqualFold(string(a.Status), "up")
		if up && adapterMatches(a) {
			return "", nil // the scripts find it: the cause is elsewhere
		}
		if up {
			names = append(names, string(a.Name))
		}
	}
	cites := []string{src, c.Path(evidence.NetInterfaces)}
	// The adapter to name: the one holding the node's IP (ip-addresses.json), else the
	// only physical adapter that is up.
	alias := ""
	if ips, ok := optional(c, evidence.IPAddresses); ok && nodeIP != "" {
		for _, ip := range ips {
			if string(ip.IPAddress) == nodeIP {
				alias = string(ip.InterfaceAlias)
				cites = append(cites, c.Path(evidence.IPAddresses))
			}
		}
	}
	if alias == "" {
		var phys []string
		for _, a := range ni.Adapters {
			if a.Physical() {
				phys = append(phys, string(a.Name))
			}
		}
		if len(phys) == 1 {
			alias = phys[0]
		}
	}
	slices.Sort(names)
	why := fmt.Sprintf("no adapter named %q is up (adapters up: %s): the SDN scripts find the management adapter by name, "+
		"helper.psm1's Get-MgmtIpAddress/Get-MgmtSubnet with Get-NetAdapter | ? Name -Like \"vEthernet ($InterfaceName*\" "+
		"(throwing \"Failed to find a suitable network adapter\", microsoft/SDN#300) and helper.v2.psm1's CreateExternalNetwork with "+
		"New-HNSNetwork -AdapterName $InterfaceName (\"An adapter was not found\", microsoft/SDN#269), $InterfaceName being \"Ethernet\" unless told",
		sdnAdapterPattern+"*", strings.Join(names, ", "))
	if alias == "" {
		return why + "; pass the host NIC's name as -InterfaceName to start.ps1", cites
	}
	iface := alias
	if inner, ok := vEthernetOf(alias); ok {
		iface = inner
	}
	if strings.EqualFold(iface, "Ethernet") {
		return "", nil // the name the scripts want: the adapter is not what stops them
	}
	return why + fmt.Sprintf("; the host NIC is named %q%s: pass -InterfaceName %s to start.ps1 (KubeCluster.ps1: Cni.InterfaceName; flanneld: --iface=%s) and re-run it",
		alias, ipNote(nodeIP), psQuote(iface), orName(nodeIP, alias)), cites
}

// vEthernetOf is X of a host vNIC "vEthernet (X)".
func vEthernetOf(name string) (string, bool) {
	inner, ok := strings.CutPrefix(name, "vEthernet (")
	if !ok || !strings.HasSuffix(inner, ")") {
		return "", false
	}
	return strings.TrimSuffix(inner, ")"), true
}

func ipNote(ip string) string {
	if ip == "" {
		return ""
	}
	return " (it holds the node IP " + ip + ")"
}

// orName is what flanneld's --iface takes: an IP address or an interface name.
func orName(ip, name string) string {
	if ip != "" {
		return ip
	}
	return psQuote(name)
}

// adapterMatches is -Like "vEthernet (Ethernet*": PowerShell's -like ignores case.
func adapterMatches(a decode.NetAdapter) bool {
	return strings.HasPrefix(strings.ToLower(string(a.Name)), strings.ToLower(sdnAdapterPattern))
}
