package foreign

import (
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// collectlogs.ps1 writes into a folder of its own (c:\k\debug\<random>), every file
// through `>`/`>>` of Windows PowerShell 5.1, so UTF-16LE with a BOM and CRLF
// (microsoft/SDN Kubernetes/windows/debug/collectlogs.ps1 @ 242fb0c; the copies in
// microsoft/wcnscripts scripts/collectlogs/collectlogs.ps1 @ 114e2bb and Azure/AgentBaker
// staging/cse/windows/debug/collectlogs.ps1 @ 06836ee write the same files):
//
//	network.txt    `Get-HnsNetwork | Select Name, Type, Id, AddressPrefix` (a table), then >> ConvertTo-Json -Depth 20
//	endpoint.txt   `Get-HnsEndpoint | Select IpAddress, MacAddress, IsRemoteEndpoint, State`, then >> the JSON
//	policy.txt     ConvertTo-Json of Get-HnsPolicyList (before 2022-09) or Get-HnsLoadBalancer -Version N
//	ip.txt         ipconfig /allcompartments /all, >> Get-NetIPAddress -IncludeAllCompartments, >> Get-NetIPInterface
//	routes.txt     route print, >> Get-NetRoute -IncludeAllCompartments
//	scqueryex.txt  sc.exe queryex, >> sc.exe qc <hns, vfpext, dnscache, ...> (not kubelet's or kube-proxy's)
//	windowsServices.txt  Get-Service hns, vfpext, kubeproxy, tcpip, kubelet, containerd, docker (2024-07, ea43876)
//
// and more no probe reads in that form (collectlogsKnown).
func collectlogsCollector() collector {
	return collector{
		name:     "collectlogs.ps1",
		upstream: "microsoft/SDN Kubernetes/windows/debug/collectlogs.ps1 @ 242fb0c (also microsoft/wcnscripts scripts/collectlogs/collectlogs.ps1 @ 114e2bb, Azure/AgentBaker staging/cse/windows/debug/collectlogs.ps1 @ 06836ee)",
		roots: func(files map[string]bool) []string {
			// network.txt, ip.txt and routes.txt are written by every version; EKS's
			// network/hns/ holds network.txt without the others.
			return withRoot(files, "network.txt", "ip.txt", "routes.txt")
		},
		wants: func(rel string) bool {
			switch rel {
			case "network.txt", "endpoint.txt", "policy.txt", "ip.txt", "routes.txt", "scqueryex.txt", "windowsServices.txt", "winver.txt":
				return true
			}
			return false
		},
		known: collectlogsKnown(),
		read: func(m *mapper) {
			m.b.Version = collectlogsVersion(m)
			readCollectlogs(m)
		},
	}
}

// collectlogsVersion tells the layouts apart by the files each version added.
func collectlogsVersion(m *mapper) string {
	has := func(rel string) bool {
		for _, r := range m.rels {
			if r == rel || strings.HasPrefix(r, rel+"/") {
				return true
			}
		}
		return false
	}
	v := "before 2022-09: hns.psm1, HNS schema v1, policy.txt from Get-HnsPolicyList"
	switch {
	case has("windowsServices.txt") || has("hnsportpoolallocs.txt"):
		v = "microsoft/SDN 2024-07 or later (windowsServices.txt, hnsportpoolallocs.txt: ea43876)"
	case has("hnslogs"):
		v = "microsoft/wcnscripts (hnslogs/)"
	case has("namespaces.txt"):
		v = "2022-09 to 2024-07 (namespaces.txt: f39bca7), as AgentBaker and wcnscripts ship it"
	}
	if t, ok := m.text("endpoint.txt"); ok {
		if _, v2, err := endpointsV1("endpoint.txt", jsonPart(t)); err == nil && v2 {
			v += ", HNS schema v2"
		} else if err == nil {
			v += ", HNS schema v1"
		}
	}
	return v
}

func readCollectlogs(m *mapper) {
	m.putJSON(evidence.HNSNetworks, "network.txt", nil)
	m.putJSON(evidence.HNSEndpoints, "endpoint.txt", endpointsV1)
	m.putJSON(evidence.HNSPolicies, "policy.txt", policyListsV1)
	// ip.txt: ipconfig, then >> Get-NetIPAddress (a list view from its first
	// "IPAddress :" line), then >> Get-NetIPInterface (a table from its "ifIndex" header);
	// routes.txt: route print, then >> Get-NetRoute (a table from its "ifIndex" header).
	if t, ok := m.text("ip.txt"); ok {
		parts := splitOutputs(t, regexp.MustCompile(`(?m)^IPAddress\s+:`), regexp.MustCompile(`(?m)^ifIndex\s+InterfaceAlias`))
		m.pasteParts("ip.txt", parts, []string{"ipconfig /allcompartments /all", "Get-NetIPAddress -IncludeAllCompartments", "Get-NetIPInterface -IncludeAllCompartments"})
	}
	if t, ok := m.text("routes.txt"); ok {
		parts := splitOutputs(t, regexp.MustCompile(`(?m)^ifIndex\s+DestinationPrefix`))
		m.pasteParts("routes.txt", parts, []string{"route print", "Get-NetRoute -IncludeAllCompartments"})
	}
	// `sc.exe queryex` lists running services only: alone it cannot tell a stopped
	// kubelet from a missing one. Since 2024-07 windowsServices.txt lists the node's
	// services of interest whatever their state, and the two merge.
	if _, ok := m.files["windowsServices.txt"]; ok {
		m.paste(pasted{rel: "scqueryex.txt"},
			pasted{rel: "windowsServices.txt", command: "Get-Service hns, vfpext, kubeproxy, tcpip, kubelet, containerd, docker"})
	} else {
		m.known("scqueryex.txt", "sc.exe queryex lists running services only (a stopped kubelet would look missing) and this version has no windowsServices.txt: services.json is not written")
	}
	// $ver.ToString() > winver.txt, then Get-HotFix: the build, without the update
	// revision (UBR) or the computer name, becomes a host.json listing those as not shown.
	m.paste(pasted{rel: "winver.txt", command: "[System.Environment]::OSVersion.ToString()"})
	m.known("winver.txt", "[Environment]::OSVersion.ToString() shows no build this reader recognizes")
	collectlogsIdentity(m)
}

// collectlogsIdentity finds the node's names and addresses: ipconfig's Host Name, and the
// IPv4 addresses of ip-addresses.json.
func collectlogsIdentity(m *mapper) {
	if t, ok := m.text("ip.txt"); ok {
		re := regexp.MustCompile(`(?m)^\s*(?:Host Name|Hostname|主机名)[ .]*: *(\S+)\s*$`)
		if sub := re.FindSubmatch(t); sub != nil {
			m.hosts = append(m.hosts, strings.ToLower(string(sub[1])))
			m.b.NodeFrom = "ipconfig's Host Name in ip.txt"
		}
	}
	if b, ok := m.node[evidence.FileIPAddresses]; ok {
		if addrs, err := decode.DecodeIPAddresses(evidence.FileIPAddresses, b); err == nil {
			for _, a := range addrs {
				m.ips = append(m.ips, string(a.IPAddress))
			}
		}
	}
}

func collectlogsKnown() []knownFile {
	const none = "no probe reads it"
	return []knownFile{
		{"networkdetailed.txt", "the networks again with -Detailed: " + none},
		{"namespaces.txt", "HNS namespaces (compartments): " + none},
		{"hnsportpoolallocs.txt", "HNS port pool allocations: " + none},
		{"ports.txt", "vfpctrl /list-vmswitch-port and port counters: vfp-ports.json needs each endpoint port's Blocked line of `vfpctrl /port <guid> /get-port-state`, which collectlogs.ps1 does not run"},
		{"vfpOutput.txt", "the VFP rules of each port: " + none},
		{"mtu.txt", "netsh int ipv4 sh int: " + none + " (net-interfaces.json holds Get-NetIPInterface as JSON)"},
		{"netadapter.txt", "Get-NetAdapter: " + none},
		{"adapters/*", "netsh and Format-List of each adapter: " + none},
		{"nvspinfo.txt", "vSwitch internals: " + none},
		{"nmscrub.txt", "vSwitch internals: " + none},
		{"nmbind.txt", "adapter bindings: " + none},
		{"arp.txt", "the neighbour caches: " + none},
		{"firewall.txt", "Get-NetFirewallRule without its port and application filters: firewall.json needs them"},
		{"wfp/*", "WFP state: " + none},
		{"hnsdiag.txt", "hnsdiag list all: network.txt and endpoint.txt hold the same as JSON"},
		{"hcsdiag.txt", "hcsdiag list: " + none},
		{"containers.txt", "ctr containers: containers.json holds the kubelet's pod sandboxes (crictl pods -o json)"},
		{"reservedports.txt", "an estimate of free ephemeral port ranges: " + none},
		{"excludedportrange.txt", "netsh excluded port ranges: " + none},
		{"dynamicportrange.txt", "netsh dynamic port range: " + none},
		{"tcpconnections.txt", "netsh tcp connections: " + none},
		{"winevt/*", "binary event logs (.evtx): winevent-scm.json and winevent-hns.json are Get-WinEvent as JSON, and this reader does not parse EVTX"},
		{"logs/**", "NetSetup, DISM and CBS logs: " + none},
		{"hnslogs/**", "HNS ETW traces (.etl): " + none},
	}
}
