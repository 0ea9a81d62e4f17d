package decode

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// The names the snippet prints, and the numbers ConvertTo-Json gives the same enums when
// they are not cast (a hand-run `Get-NetFirewallProfile | ConvertTo-Json`).
func TestDecodeFirewallNamesAndNumbers(t *testing.T) {
	names := `{"Profiles":[{"Name":"Domain","Enabled":"True","DefaultInboundAction":"NotConfigured"},
	  {"Name":"Private","Enabled":"False","DefaultInboundAction":"Block"},{"Name":"Public","Enabled":"True","DefaultInboundAction":"Allow"}],
	 "ConnectionProfiles":{"InterfaceAlias":"vEthernet (Ethernet)","NetworkCategory":"DomainAuthenticated"},
	 "Rules":{"Name":"kubelet","Action":"Allow","Profile":"Domain, Private","Protocol":"TCP","LocalPort":"10250","Program":"Any"}}`
	numbers := `{"Profiles":[{"Name":"Domain","Enabled":1,"DefaultInboundAction":0},
	  {"Name":"Private","Enabled":0,"DefaultInboundAction":4},{"Name":"Public","Enabled":1,"DefaultInboundAction":2}],
	 "ConnectionProfiles":[{"InterfaceAlias":"vEthernet (Ethernet)","NetworkCategory":2}],
	 "Rules":[{"Name":"kubelet","Action":2,"Profile":3,"Protocol":"6","LocalPort":["10250"],"Program":"Any"}]}`
	for label, in := range map[string]string{"names": names, "numbers": numbers} {
		f, err := DecodeFirewall("firewall.json", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if len(f.Profiles) != 3 || !f.Profiles[0].On() || !f.Profiles[0].BlocksInbound() || f.Profiles[1].On() || f.Profiles[2].BlocksInbound() {
			t.Errorf("%s: profiles %+v", label, f.Profiles)
		}
		if len(f.ConnectionProfiles) != 1 || f.ConnectionProfiles[0].Bit() != ProfileDomain {
			t.Errorf("%s: connection profiles %+v", label, f.ConnectionProfiles)
		}
		r := f.Rules[0]
		if !r.Allows() || r.Blocks() || r.Profiles() != ProfileDomain|ProfilePrivate || !r.Matches("TCP", 10250) || r.Matches("UDP", 10250) || !r.AnyProgram() {
			t.Errorf("%s: rule %+v", label, r)
		}
	}
}

func TestFirewallRuleMatches(t *testing.T) {
	cases := []struct {
		proto string
		ports []string
		tcp   bool
	}{
		{"TCP", []string{"10250"}, true},
		{"Any", nil, true},
		{"TCP", []string{"Any"}, true},
		{"TCP", []string{"10000-10999"}, true},
		{"TCP", []string{"80", "443"}, false},
		{"TCP", []string{"10240-10249", "10251-10260"}, false},
		{"TCP", []string{"RPC"}, false},
		{"UDP", []string{"10250"}, false},
		{"ICMPv4", nil, false},
	}
	for _, c := range cases {
		r := FirewallRule{Protocol: Str(c.proto), LocalPort: c.ports}
		if got := r.Matches("TCP", 10250); got != c.tcp {
			t.Errorf("%s %v: matches TCP 10250 %v, want %v", c.proto, c.ports, got, c.tcp)
		}
	}
	if !(FirewallRule{Program: `C:\k\kubelet.exe`}).ForProgram("kubelet.exe") || (FirewallRule{Program: `C:\k\kube-proxy.exe`}).ForProgram("kubelet.exe") {
		t.Error("ForProgram")
	}
	if (FirewallRule{Action: "Block"}).Allows() || !(FirewallRule{Action: "4"}).Blocks() || !(FirewallRule{Action: "AllowBypass"}).Allows() {
		t.Error("actions")
	}
}

func TestDecodeFirewallUTF16AndBadInput(t *testing.T) {
	in := `{"Profiles":{"Name":"Public","Enabled":"True","DefaultInboundAction":"Block"},"ConnectionProfiles":[],"Rules":[]}`
	u := utf16.Encode([]rune(in))
	b := []byte{0xFF, 0xFE}
	for _, r := range u {
		b = append(b, byte(r), byte(r>>8))
	}
	f, err := DecodeFirewall("firewall.json", b)
	if err != nil || len(f.Profiles) != 1 || f.Profiles[0].Bit() != ProfilePublic || len(f.Rules) != 0 {
		t.Fatalf("UTF-16 with a BOM: %+v %v", f, err)
	}
	for _, bad := range []string{`{}`, `{"Profiles":[{"Name":"Office"}]}`, `[1,2]`, `not json`} {
		if _, err := DecodeFirewall("firewall.json", []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		} else if !strings.Contains(err.Error(), "firewall.json") {
			t.Errorf("%s: the error does not name the file: %v", bad, err)
		}
	}
}

// Both HNS schemas' VXLAN settings: v1 VSID and flat RemoteSubnetRoute (Get-HnsNetwork on
// WS2019), v2 Settings (hns.v2.psm1, flannel's hcn calls), and a VxlanPort policy.
func TestOverlaySettings(t *testing.T) {
	v1 := `[{"Name":"vxlan0","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.2.0/24","Policies":[{"Type":"VSID","VSID":4096}]}],
	  "Policies":[{"Type":"RemoteSubnetRoute","IsolationId":4097,"DestinationPrefix":"10.244.0.0/24"}]}]`
	v2 := `[{"Name":"flannel.4096","Type":"Overlay","Ipams":[{"Subnets":[{"IpAddressPrefix":"10.244.1.0/24","Policies":[{"Type":"VSID","Settings":{"IsolationId":4096}}]}]}],
	  "Policies":[{"Type":"RemoteSubnetRoute","Settings":{"IsolationId":4096}},{"Type":"VxlanPort","Settings":{"Port":8472}}]}]`
	ns, err := DecodeHNSNetworks("hns-networks.json", []byte(v1))
	if err != nil || len(ns) != 1 {
		t.Fatal(err)
	}
	if v := ns[0].VNIs(); len(v) != 1 || v[0] != 4096 || ns[0].PeerVNIs()[0] != 4097 || ns[0].VXLANPort() != 0 {
		t.Errorf("v1: VNIs %v, peers %v, port %d", ns[0].VNIs(), ns[0].PeerVNIs(), ns[0].VXLANPort())
	}
	ns, err = DecodeHNSNetworks("hns-networks.json", []byte(v2))
	if err != nil || len(ns) != 1 {
		t.Fatal(err)
	}
	if v := ns[0].VNIs(); len(v) != 1 || v[0] != 4096 || ns[0].PeerVNIs()[0] != 4096 || ns[0].VXLANPort() != 8472 {
		t.Errorf("v2: VNIs %v, peers %v, port %d", ns[0].VNIs(), ns[0].PeerVNIs(), ns[0].VXLANPort())
	}
	// A shallow dump's policies as a string still decode, without VNIs.
	ns, err = DecodeHNSNetworks("hns-networks.json", []byte(`[{"Name":"vxlan0","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.2.0/24","Policies":"System.Object[]"}]}]`))
	if err != nil || len(ns[0].VNIs()) != 0 || ns[0].Subnets[0].AddressPrefix != "10.244.2.0/24" {
		t.Errorf("shallow: %+v %v", ns, err)
	}
}
