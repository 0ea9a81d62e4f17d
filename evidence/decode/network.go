package decode

import (
	"bytes"
	"encoding/json"
	"strings"
)

// HNSNetwork is one network as `Get-HnsNetwork | ConvertTo-Json` prints it: the HNS v1
// schema (the HostNetworkingService module, hns.v2.psm1 -Version 1) or schema v2
// (hns.v2.psm1's default, HCN), whose subnets sit under Ipams[].Subnets[] with
// IpAddressPrefix and whose adapter is a NetAdapterName policy. DecodeHNSNetworks folds v2
// into the v1 fields, so probes read one shape.
type HNSNetwork struct {
	ID                 Str
	Name               Str
	Type               Str // L2Bridge, Overlay, NAT/ICS, Transparent; case varies by build
	Subnets            []HNSSubnet
	ManagementIP       Str
	NetworkAdapterName Str
	State              Int
	// Schema v2 only.
	Ipams    []struct{ Subnets []HNSSubnet }
	Policies []HNSPolicy
	// SubnetsUnknown: the evidence has neither Subnets nor Ipams, which the snippet
	// always prints; a pasted list view cut before its Subnets line leaves them out.
	// The network exists, its subnet was not shown: not "no subnet".
	SubnetsUnknown bool `json:"-"`
}

// HNSPolicy is a network policy of schema v2 ({"Type": ..., "Settings": {...}}). Other
// shapes (v1 policies, "@{...}" strings from a shallow ConvertTo-Json) are kept as empty.
type HNSPolicy struct {
	Type               string
	NetworkAdapterName string // Settings.NetworkAdapterName of a NetAdapterName policy
	overlayPolicy             // VXLAN's VNI and port, where the policy carries them (overlay.go)
}

func (p *HNSPolicy) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type     Str
		Settings json.RawMessage
	}
	if json.Unmarshal(b, &raw) != nil {
		*p = HNSPolicy{}
		return nil
	}
	p.Type = string(raw.Type)
	var set struct{ NetworkAdapterName Str }
	if json.Unmarshal(raw.Settings, &set) == nil {
		p.NetworkAdapterName = string(set.NetworkAdapterName)
	}
	p.overlayPolicy = readOverlayPolicy(b, raw.Settings)
	return nil
}

// HNSSubnet is one subnet of a network. With PowerShell's default -Depth 2 a subnet can
// arrive as the string "@{AddressPrefix=10.200.2.0/24; GatewayAddress=10.200.2.1}"; that
// form is read too.
type HNSSubnet struct {
	AddressPrefix  string
	GatewayAddress string
	VSIDs          []int64 // the VXLAN VNIs of its VSID policies (overlay.go)
}

func (s *HNSSubnet) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		kv := HashtableString(v)
		s.AddressPrefix, s.GatewayAddress = kv["AddressPrefix"], kv["GatewayAddress"]
		return nil
	}
	var raw struct {
		AddressPrefix, GatewayAddress Str
		IpAddressPrefix               Str // schema v2
		Routes                        []struct{ NextHop, DestinationPrefix Str }
		Policies                      json.RawMessage
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.VSIDs = subnetVSIDs(raw.Policies)
	s.AddressPrefix, s.GatewayAddress = string(raw.AddressPrefix), string(raw.GatewayAddress)
	if s.AddressPrefix == "" {
		s.AddressPrefix = string(raw.IpAddressPrefix)
	}
	for _, r := range raw.Routes { // v2 names the gateway as the default route's next hop
		if s.GatewayAddress == "" && r.DestinationPrefix == "0.0.0.0/0" {
			s.GatewayAddress = string(r.NextHop)
		}
	}
	return nil
}

// HashtableString parses PowerShell's list-view rendering of a nested object,
// "@{Key=Value; Key2=Value2}", into a map.
func HashtableString(s string) map[string]string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "@{"), "}")
	out := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, "=")
		if ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// DecodeHNSNetworks reads hns-networks.json.
func DecodeHNSNetworks(file string, b []byte) ([]HNSNetwork, error) {
	ns, err := Array[HNSNetwork](file, b)
	if err != nil {
		return nil, err
	}
	keys, err := Array[map[string]json.RawMessage](file, b)
	if err != nil {
		return nil, err
	}
	for i, n := range ns {
		if n.Name == "" && n.ID == "" {
			return nil, fail(file, nil, "network %d has neither Name nor ID: is this Get-HnsNetwork output?", i+1)
		}
		_, subnets := keys[i]["Subnets"]
		_, ipams := keys[i]["Ipams"]
		n.SubnetsUnknown = !subnets && !ipams
		ns[i] = n.v1()
	}
	return ns, nil
}

// v1 fills the v1 fields from schema v2 ones where v1 left them empty.
func (n HNSNetwork) v1() HNSNetwork {
	if len(n.Subnets) == 0 {
		for _, ipam := range n.Ipams {
			n.Subnets = append(n.Subnets, ipam.Subnets...)
		}
	}
	for _, p := range n.Policies {
		if n.NetworkAdapterName == "" && strings.EqualFold(p.Type, "NetAdapterName") {
			n.NetworkAdapterName = Str(p.NetworkAdapterName)
		}
	}
	return n
}

// Kind normalizes the network type: "l2bridge", "overlay", "nat", "ics", "transparent", ...
func (n HNSNetwork) Kind() string { return strings.ToLower(string(n.Type)) }

// Prefixes lists the subnets' address prefixes.
func (n HNSNetwork) Prefixes() []string {
	var out []string
	for _, s := range n.Subnets {
		if s.AddressPrefix != "" {
			out = append(out, s.AddressPrefix)
		}
	}
	return out
}

// FindNetwork looks a network up by name, case-insensitively (the SDN scripts lower-case it).
func FindNetwork(ns []HNSNetwork, name string) (HNSNetwork, bool) {
	for _, n := range ns {
		if strings.EqualFold(string(n.Name), name) {
			return n, true
		}
	}
	return HNSNetwork{}, false
}

// Route is one IPv4 route (evidence.FileRoutes).
type Route struct {
	DestinationPrefix Str
	NextHop           Str
	InterfaceAlias    Str
	IfIndex           Int `json:"ifIndex"`
	RouteMetric       Int
	// Protocol is who added the route (MSFT_NetRoute.Protocol): "" in evidence collected
	// before the snippet selected it.
	Protocol Str
}

// LearnedByBGP says whether the route came from the RRAS BGP router: Protocol "Bgp" as the
// snippet writes it, or 14, the number ConvertTo-Json gives the enum when it is not taken
// as text (MSFT_NetRoute.Protocol is a uint16 holding NL_ROUTE_PROTOCOL: RouteProtocolBgp = 14, RFC 4292).
func (r Route) LearnedByBGP() bool {
	return strings.EqualFold(string(r.Protocol), "bgp") || r.Protocol == "14"
}

// DecodeRoutes reads routes.json.
func DecodeRoutes(file string, b []byte) ([]Route, error) {
	rs, err := Array[Route](file, b)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if r.DestinationPrefix == "" {
			return nil, fail(file, nil, "route %d has no DestinationPrefix: is this Get-NetRoute output?", i+1)
		}
	}
	return rs, nil
}

// IPAddress is one IPv4 address of the host (evidence.FileIPAddresses).
type IPAddress struct {
	IPAddress      Str
	PrefixLength   Int
	InterfaceAlias Str
}

// DecodeIPAddresses reads ip-addresses.json.
func DecodeIPAddresses(file string, b []byte) ([]IPAddress, error) {
	return Array[IPAddress](file, b)
}
