package decode

import "testing"

// ps51NetworkV2 is one network in HNS schema v2, the shape hns.v2.psm1's Get-HnsNetwork
// returns without -Version 1 (field names as hcsshim's hcn.HostComputeNetwork), printed
// by Windows PowerShell 5.1's ConvertTo-Json.
const ps51NetworkV2 = "{\r\n    \"ID\":  \"6BE5C8C4-5DD1-4E0B-9B1A-0D2C4A2F3E11\",\r\n    \"Name\":  \"cbr0\",\r\n" +
	"    \"Type\":  \"L2Bridge\",\r\n    \"Flags\":  0,\r\n" +
	"    \"Ipams\":  [\r\n        {\r\n            \"Type\":  \"Static\",\r\n            \"Subnets\":  [\r\n" +
	"                {\r\n                    \"IpAddressPrefix\":  \"10.244.1.0/24\",\r\n" +
	"                    \"Routes\":  [\r\n                        {\r\n                            \"NextHop\":  \"10.244.1.1\",\r\n" +
	"                            \"DestinationPrefix\":  \"0.0.0.0/0\"\r\n                        }\r\n                    ]\r\n" +
	"                }\r\n            ]\r\n        }\r\n    ],\r\n" +
	"    \"Policies\":  [\r\n        {\r\n            \"Type\":  \"NetAdapterName\",\r\n" +
	"            \"Settings\":  {\r\n                \"NetworkAdapterName\":  \"Ethernet0\"\r\n            }\r\n        },\r\n" +
	"        \"@{Type=AutomaticDNS; Settings=}\"\r\n    ],\r\n" +
	"    \"SchemaVersion\":  {\r\n        \"Major\":  2,\r\n        \"Minor\":  0\r\n    }\r\n}"

func TestHNSNetworksSchemaV2(t *testing.T) {
	ns, err := DecodeHNSNetworks("nodes/win-1/hns-networks.json", []byte(ps51NetworkV2))
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0].Name != "cbr0" || ns[0].Kind() != "l2bridge" {
		t.Fatalf("got %+v", ns)
	}
	if got := ns[0].Prefixes(); len(got) != 1 || got[0] != "10.244.1.0/24" {
		t.Fatalf("prefixes %v", got)
	}
	if ns[0].Subnets[0].GatewayAddress != "10.244.1.1" || ns[0].NetworkAdapterName != "Ethernet0" {
		t.Fatalf("gateway %q adapter %q", ns[0].Subnets[0].GatewayAddress, ns[0].NetworkAdapterName)
	}
}

// TestHNSNetworksV1KeepsItsFields: v1 subnets win over anything v2-shaped.
func TestHNSNetworksV1KeepsItsFields(t *testing.T) {
	in := `[{"Name":"l2bridge","Type":"L2Bridge","NetworkAdapterName":"Ethernet",` +
		`"Subnets":[{"AddressPrefix":"10.200.2.0/24","GatewayAddress":"10.200.2.1"}],` +
		`"Policies":[{"Type":"VLAN","VLAN":1}]}]`
	ns, err := DecodeHNSNetworks("f", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := ns[0].Prefixes(); len(got) != 1 || got[0] != "10.200.2.0/24" || ns[0].NetworkAdapterName != "Ethernet" {
		t.Fatalf("got %+v", ns[0])
	}
}

// TestRouteProtocol: Protocol is optional (evidence from before the snippet selected it),
// and Bgp is read as the snippet writes it and as the enum's number ConvertTo-Json gives.
func TestRouteProtocol(t *testing.T) {
	rs, err := DecodeRoutes("routes.json", []byte(`[
		{"DestinationPrefix": "192.168.12.0/26", "NextHop": "10.0.0.10", "Protocol": "Bgp"},
		{"DestinationPrefix": "192.168.40.64/26", "NextHop": "10.0.0.11", "Protocol": 14},
		{"DestinationPrefix": "0.0.0.0/0", "NextHop": "10.0.0.1", "Protocol": "NetMgmt"},
		{"DestinationPrefix": "10.0.0.0/24", "NextHop": "0.0.0.0"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false, false} {
		if got := rs[i].LearnedByBGP(); got != want {
			t.Errorf("route %d (%q): LearnedByBGP %v, want %v", i, rs[i].Protocol, got, want)
		}
	}
	if rs[3].Protocol != "" {
		t.Errorf("a route without Protocol decoded as %q", rs[3].Protocol)
	}
}
