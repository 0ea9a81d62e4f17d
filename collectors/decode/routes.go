package decode

// Route is one IPv4 route (collectors.NodeRoutes).
type Route struct {
	DestinationPrefix Str
	NextHop           Str
	InterfaceAlias    Str
	IfIndex           Int `json:"ifIndex"`
	RouteMetric       Int
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

// IPAddress is one IPv4 address of the host (collectors.NodeIPAddresses).
type IPAddress struct {
	IPAddress      Str
	PrefixLength   Int
	InterfaceAlias Str
}

// DecodeIPAddresses reads ip-addresses.json.
func DecodeIPAddresses(file string, b []byte) ([]IPAddress, error) {
	return Array[IPAddress](file, b)
}
