package probes

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// The firewall's decisions from the evidence alone, in the shapes PS 5.1 prints: enums
// as names (the snippet) and as numbers (a hand-run ConvertTo-Json).

func fwJSON(enabled, inbound, category string, rules ...string) string {
	var ps []string
	for _, n := range []string{"Domain", "Private", "Public"} {
		ps = append(ps, `{"Name":"`+n+`","Enabled":`+enabled+`,"DefaultInboundAction":`+inbound+`}`)
	}
	return `{"Profiles":[` + strings.Join(ps, ",") + `],"ConnectionProfiles":[{"InterfaceAlias":"vEthernet (Ethernet)","NetworkCategory":` + category +
		`}],"Rules":[` + strings.Join(rules, ",") + `]}`
}

func fwRuleJSON(name, action, profile, proto, port, program, source string) string {
	return `{"Name":"` + name + `","DisplayName":"` + name + `","Action":` + action + `,"Profile":` + profile + `,"Protocol":"` + proto +
		`","LocalPort":` + port + `,"Program":"` + strings.ReplaceAll(program, `\`, `\\`) + `","PolicyStoreSourceType":"` + source + `"}`
}

func TestHostFirewallPaths(t *testing.T) {
	const p = "nodes/win-1/firewall.json"
	ev := func(s string) map[string]string { return map[string]string{p: s} }
	kubelet := fwRuleJSON("kubelet", `"Allow"`, `"Any"`, "TCP", `"10250"`, "Any", "Local")
	// Windows' defaults (on, NotConfigured = Block) and no rule: closed.
	f := clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"NotConfigured"`, `"Public"`))), Fail,
		"drops inbound TCP 10250", "Public (vEthernet (Ethernet)): firewall on, inbound Block by default")
	if f.Fix == nil || f.Fix.Action != "fix-firewall-kubelet" || f.Fix.Kind != NodeScript {
		t.Errorf("no rule: fix %+v", f.Fix)
	}
	// The same as numbers: Enabled 1, DefaultInboundAction 4, NetworkCategory 0 (Public).
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON("1", "4", "0"))), Fail, "drops inbound TCP 10250")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"Block"`, `"Public"`, kubelet))), Pass, `allowed by "kubelet"`)
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"False"`, `"Block"`, `"Public"`))), Pass, "firewall off")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON("0", "4", "0"))), Pass, "firewall off")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"Allow"`, `"Public"`))), Pass, "default inbound action Allow")
	// Allow by program: kubelet.exe's rule on any port counts, another program's does not.
	byProgram := fwRuleJSON("kubelet.exe", "2", "0", "Any", `"Any"`, `C:\k\kubelet.exe`, "Local")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON("1", "4", "0", byProgram))), Pass, `allowed by "kubelet.exe"`)
	other := fwRuleJSON("iis", "2", "0", "TCP", `"Any"`, `C:\Windows\System32\inetsrv\w3wp.exe`, "Local")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON("1", "4", "0", other))), Fail, "no enabled rule allows TCP 10250")
	// A rule for the Domain profile only does not open the Public one the node is in.
	domainOnly := fwRuleJSON("kubelet", `"Allow"`, `"Domain"`, "TCP", `["10250"]`, "Any", "Local")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"Block"`, `"Public"`, domainOnly))), Fail, "Public")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"Block"`, `"DomainAuthenticated"`, domainOnly))), Pass, "Domain")
	// A block rule wins over the allow rule; a GPO's is remedied in the GPO.
	block := fwRuleJSON("{8A1C}", `"Block"`, `"Any"`, "TCP", `"10000-10999"`, "Any", "GroupPolicy")
	f = clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON(`"True"`, `"Block"`, `"Public"`, kubelet, block))), Fail, "a block rule wins", "from Group Policy")
	if f.Fix == nil || f.Fix.ID != "firewall-unblock" || f.Fix.Kind != Manual || len(f.Fix.Notes) == 0 {
		t.Errorf("GPO block: fix %+v", f.Fix)
	}
	localBlock := fwRuleJSON("deny-kubelet", "4", "0", "6", `"10250"`, "Any", "Local")
	f = clOne(t, hostFirewall{}, "win-1", clEv(ev(fwJSON("1", "4", "0", kubelet, localBlock))), Fail, "block rule")
	if f.Fix == nil || !strings.Contains(strings.Join(f.Fix.Commands, "\n"), "Remove-NetFirewallRule -Name 'deny-kubelet'") {
		t.Errorf("local block: fix %+v", f.Fix)
	}
	// Evidence from before the snippet: skip; a failed snippet: its error.
	clOne(t, hostFirewall{}, "win-1", clEv(map[string]string{"nodes/win-1/host.json": `{}`}), Skip, "collect again")
	clOne(t, hostFirewall{}, "win-1", clEv(ev(`{"Profiles":[]}`)), Error, "no Profiles")
}

func TestNetOverlayPaths(t *testing.T) {
	const nets, host, fw = "nodes/win-1/hns-networks.json", "nodes/win-1/host.json", "nodes/win-1/firewall.json"
	network := func(vni, peer int, extra string) string {
		return `[{"Name":"External","Type":"Overlay","Subnets":[{"AddressPrefix":"192.168.255.0/30","Policies":[{"Type":"VSID","VSID":9999}]}]},` +
			`{"Name":"vxlan0","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.2.0/24","Policies":[{"Type":"VSID","VSID":` + itoa(vni) + `}]}],` +
			`"Policies":[{"Type":"RemoteSubnetRoute","IsolationId":` + itoa(peer) + `,"DestinationPrefix":"10.244.0.0/24"}` + extra + `]}]`
	}
	ws2019 := func(ubr int) string { return `{"CurrentBuild":"17763","UBR":` + itoa(ubr) + `}` }
	ok := map[string]string{nets: network(4096, 4096, ""), host: ws2019(2628)}
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: `[{"Name":"cbr0","Type":"L2Bridge"}]`}), Pass, "no Overlay HNS network")
	clOne(t, netOverlay{}, "win-1", clEv(ok), Pass, "vxlan0: VNI 4096", "firewall.json not available")
	f := clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), host: ws2019(107)}), Fail, "17763.107 is older than 17763.379")
	if f.Fix == nil || f.Fix.ID != "install-cumulative-update" {
		t.Errorf("KB: fix %+v", f.Fix)
	}
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), host: ws2019(379)}), Pass, "17763.379")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), host: `{"CurrentBuild":"20348","UBR":100}`}), Pass, "20348.100")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(1, 1, "")}), Fail, "VNI 1, Windows needs 4096")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4097, "")}), Fail, "peers' remote subnet routes carry VNI 4097")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, `,{"Type":"VxlanPort","Settings":{"Port":8472}}`)}), Fail, "UDP 8472")
	// UDP 4789: a block rule fails; no allow rule is noted, not failed; off passes.
	blocked := fwJSON(`"True"`, `"Block"`, `"Public"`, fwRuleJSON("Block VXLAN", `"Block"`, `"Any"`, "UDP", `"4789"`, "Any", "GroupPolicy"),
		fwRuleJSON("OverlayTraffic4789UDP", `"Allow"`, `"Any"`, "UDP", `"4789"`, "Any", "Local"))
	f = clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), fw: blocked}), Fail, "UDP 4789 (VXLAN) inbound", "Block VXLAN")
	if f.Fix == nil || f.Fix.ID != "firewall-unblock" {
		t.Errorf("4789 blocked: fix %+v", f.Fix)
	}
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), fw: fwJSON(`"True"`, `"Block"`, `"Public"`)}), Pass, "not judged a failure")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: network(4096, 4096, ""), fw: fwJSON(`"False"`, `"Block"`, `"Public"`)}), Pass, "firewall off")
	// A pasted list view without the subnets' policies: the VNI is unread, nothing claimed.
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets: `[{"Name":"vxlan0","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.2.0/24"}]}]`}), Skip, "the VNI of vxlan0 is not in")
	clOne(t, netOverlay{}, "win-1", clEv(map[string]string{nets + ".err": "exit 1\nGet-HnsNetwork : The term 'Get-HnsNetwork' is not recognized"}), Skip, "HNS-NETWORK says why")
}

// The profile of the interface holding the node's InternalIP is the one that applies: an
// HNS vNIC in the Public profile does not count when the node's own network is Domain.
func TestHostFirewallNodeInterface(t *testing.T) {
	fw := `{"Profiles":[{"Name":"Domain","Enabled":"False","DefaultInboundAction":"Block"},{"Name":"Private","Enabled":"True","DefaultInboundAction":"Block"},` +
		`{"Name":"Public","Enabled":"True","DefaultInboundAction":"Block"}],"ConnectionProfiles":[` +
		`{"InterfaceAlias":"vEthernet (nat)","NetworkCategory":"Public"},{"InterfaceAlias":"vEthernet (Ethernet)","NetworkCategory":"DomainAuthenticated"}],"Rules":[]}`
	ips := `[{"IPAddress":"10.240.0.22","PrefixLength":24,"InterfaceAlias":"vEthernet (Ethernet)"},{"IPAddress":"172.20.0.1","PrefixLength":20,"InterfaceAlias":"vEthernet (nat)"}]`
	files := map[string]string{"nodes/win-1/firewall.json": fw, "nodes/win-1/ip-addresses.json": ips,
		evidence.PathNodes: string(clList(t, clWinNode("win-1")))}
	clOne(t, hostFirewall{}, "win-1", clEv(files), Pass, "Domain (vEthernet (Ethernet)): firewall off")
	// Without the node's address every connection's profile counts, the Public one too.
	delete(files, evidence.PathNodes)
	clOne(t, hostFirewall{}, "win-1", clEv(files), Fail, "Public (vEthernet (nat))")
}
