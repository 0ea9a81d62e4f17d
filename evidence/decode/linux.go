package decode

import (
	"encoding/json"
	"net/netip"
	"strings"
)

// LinuxOS is os.json, which the shell sweep writes first: the node is Linux.
type LinuxOS struct {
	Kind, Hostname, Kernel, OSImage, CollectedAt string
}

// DecodeLinuxOS reads os.json. Kind must be present: it is the file's whole point.
func DecodeLinuxOS(file string, b []byte) (LinuxOS, error) {
	o, err := Object[LinuxOS](file, b)
	if err != nil {
		return o, err
	}
	if o.Kind == "" {
		return o, fail(file, nil, "os.json has no \"Kind\" (expected \"linux\")")
	}
	return o, nil
}

// IPRoute is one route of `ip -j route show` (iproute2's JSON output).
type IPRoute struct {
	Type     string   `json:"type"` // "" for unicast; blackhole, unreachable, prohibit
	Dst      string   `json:"dst"`  // "default", a CIDR, or a bare address (a /32)
	Gateway  string   `json:"gateway"`
	Dev      string   `json:"dev"`
	Protocol string   `json:"protocol"`
	Scope    string   `json:"scope"`
	PrefSrc  string   `json:"prefsrc"`
	Metric   int      `json:"metric"`
	Flags    []string `json:"flags"`
}

// Prefix is the route's destination as a masked prefix ("default" is 0.0.0.0/0);
// ok is false for what is not IPv4 or IPv6 (a multicast "ff00::/8" parses fine).
func (r IPRoute) Prefix() (netip.Prefix, bool) {
	switch {
	case r.Dst == "default":
		return netip.MustParsePrefix("0.0.0.0/0"), true
	case strings.Contains(r.Dst, "/"):
		p, err := netip.ParsePrefix(r.Dst)
		return p.Masked(), err == nil
	}
	a, err := netip.ParseAddr(r.Dst)
	if err != nil {
		return netip.Prefix{}, false
	}
	return netip.PrefixFrom(a, a.BitLen()), true
}

// Forwards says whether packets matching the route go somewhere (not a blackhole,
// unreachable or prohibit route, and not linkdown).
func (r IPRoute) Forwards() bool {
	if r.Type != "" && r.Type != "unicast" {
		return false
	}
	for _, f := range r.Flags {
		if f == "linkdown" {
			return false
		}
	}
	return true
}

// DecodeIPRoutes reads linux-ip-route.json. Every route must have a dst.
func DecodeIPRoutes(file string, b []byte) ([]IPRoute, error) {
	rs, err := ipJSON[IPRoute](file, b)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if r.Dst == "" {
			return nil, fail(file, nil, "route %d has no \"dst\" (is this `ip -j route` output?)", i+1)
		}
	}
	return rs, nil
}

// IPLink is one interface of `ip -j addr show` or `ip -j -d link show`.
type IPLink struct {
	IfIndex   int        `json:"ifindex"`
	IfName    string     `json:"ifname"`
	MTU       int        `json:"mtu"`
	OperState string     `json:"operstate"`
	Flags     []string   `json:"flags"`
	AddrInfo  []AddrInfo `json:"addr_info"`
	LinkInfo  *struct {
		InfoKind string     `json:"info_kind"`
		InfoData *VXLANInfo `json:"info_data"`
	} `json:"linkinfo"`
}

// AddrInfo is one address of an interface.
type AddrInfo struct {
	Family    string `json:"family"` // inet, inet6
	Local     string `json:"local"`
	PrefixLen int    `json:"prefixlen"`
}

// VXLANInfo is what `ip -d link` shows of a VXLAN device (flannel.1, flannel.4096).
// Other kinds' info_data fields are ignored.
type VXLANInfo struct {
	ID    int    `json:"id"`   // the VNI
	Port  int    `json:"port"` // UDP destination port
	Local string `json:"local"`
	Dev   string `json:"dev"`
}

// Kind is the link's info_kind ("vxlan", "bridge", "veth"), "" for a plain device.
func (l IPLink) Kind() string {
	if l.LinkInfo == nil {
		return ""
	}
	return l.LinkInfo.InfoKind
}

// VXLAN returns the VXLAN settings of a vxlan link.
func (l IPLink) VXLAN() (VXLANInfo, bool) {
	if l.Kind() != "vxlan" || l.LinkInfo.InfoData == nil {
		return VXLANInfo{}, false
	}
	return *l.LinkInfo.InfoData, true
}

// HasAddr says whether the interface holds the IPv4 or IPv6 address ip.
func (l IPLink) HasAddr(ip string) bool {
	for _, a := range l.AddrInfo {
		if a.Local == ip {
			return true
		}
	}
	return false
}

// DecodeIPLinks reads linux-ip-addr.json and linux-ip-link.json. iproute2 4.x printed
// an empty {} for some interfaces; those are skipped.
func DecodeIPLinks(file string, b []byte) ([]IPLink, error) {
	ls, err := ipJSON[IPLink](file, b)
	if err != nil {
		return nil, err
	}
	out := ls[:0]
	for _, l := range ls {
		if l.IfName != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// ipJSON decodes one iproute2 JSON array. Unlike PowerShell, ip always prints an array
// (`[]` for none); one bare object is refused as not ip's output.
func ipJSON[T any](file string, b []byte) ([]T, error) {
	t, err := Text(file, b)
	if err != nil {
		return nil, err
	}
	var out []T
	if err := json.Unmarshal(t, &out); err != nil {
		return nil, fail(file, err, "not iproute2 JSON (a list from `ip -j`): %v", describeJSONErr(err))
	}
	return out, nil
}
