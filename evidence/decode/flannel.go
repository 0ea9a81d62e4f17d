package decode

import (
	"encoding/json"
	"net/netip"
	"path"
	"strings"
)

// FlannelFiles is flannel.json: flanneld's subnet.env and the overlay scripts' source
// VIP files as the node holds them, each with its text. A node without flannel has none.
type FlannelFiles struct {
	Files List[FlannelFile]
}

// FlannelFile is one file the snippet found.
type FlannelFile struct {
	Path          Str
	LastWriteTime Str
	Content       Str
}

// DecodeFlannelFiles reads flannel.json (one object; a file without a path is refused).
func DecodeFlannelFiles(file string, b []byte) (FlannelFiles, error) {
	f, err := Object[FlannelFiles](file, b)
	if err != nil {
		return f, err
	}
	for i, x := range f.Files {
		if x.Path == "" {
			return f, fail(file, nil, "Files[%d] has no Path", i)
		}
	}
	return f, nil
}

// base is the file's name, lower-cased (Windows paths compare case-insensitively).
func (f FlannelFile) base() string {
	return strings.ToLower(path.Base(strings.ReplaceAll(string(f.Path), `\`, "/")))
}

// SubnetEnv is flanneld's subnet.env, parsed with the Linux workers' reader (flanneld
// writes the same KEY=VALUE lines on both: flannel pkg/subnet/subnet.go WriteSubnetFile).
// ok is false when the node has none; err says why the one it has cannot be read.
func (f FlannelFiles) SubnetEnv() (env FlannelSubnet, file FlannelFile, ok bool, err error) {
	for _, x := range f.Files {
		if x.base() == "subnet.env" {
			env, err = DecodeFlannelSubnet(string(x.Path), []byte(x.Content))
			return env, x, true, err
		}
	}
	return FlannelSubnet{}, FlannelFile{}, false, nil
}

// SourceVIPFile is one folder's pair of source VIP files: what was asked of host-local
// (sourceVipRequest.json: the subnet it was to allocate from) and its answer
// (sourceVip.json: the address it reserved).
type SourceVIPFile struct {
	Dir           string
	VIP           FlannelFile // sourceVip.json; Path "" when absent
	Request       FlannelFile // sourceVipRequest.json; Path "" when absent
	Address       netip.Prefix
	RequestSubnet netip.Prefix
	Problem       string // why the answer holds no address ("" when it does, or is absent)
}

// SourceVIPs are the source VIP folders the node has, in the snippet's order.
func (f FlannelFiles) SourceVIPs() []SourceVIPFile {
	var out []SourceVIPFile
	at := func(dir string) *SourceVIPFile {
		for i := range out {
			if strings.EqualFold(out[i].Dir, dir) {
				return &out[i]
			}
		}
		out = append(out, SourceVIPFile{Dir: dir})
		return &out[len(out)-1]
	}
	for _, x := range f.Files {
		p := string(x.Path)
		dir := p[:max(strings.LastIndexAny(p, `\/`), 0)]
		switch x.base() {
		case "sourcevip.json":
			s := at(dir)
			s.VIP = x
			s.Address, s.Problem = hostLocalAddress(string(x.Content))
		case "sourceviprequest.json":
			s := at(dir)
			s.Request = x
			s.RequestSubnet = requestSubnet(string(x.Content))
		}
	}
	return out
}

// hostLocalAddress reads host-local's answer: CNI 0.2.0's ip4.ip (the SDN helper asks
// for 0.2.0) or 0.3.0 and later's ips[].address (sig-windows-tools asks for 0.3.0);
// containernetworking/cni pkg/types/020 and 040. An empty file or an error answer
// ({"code": N, "msg": ...}) holds none: host-local failed when it was written.
func hostLocalAddress(text string) (netip.Prefix, string) {
	text = strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if text == "" {
		return netip.Prefix{}, "the file is empty (host-local printed nothing)"
	}
	var r struct {
		IP4 *struct {
			IP string `json:"ip"`
		} `json:"ip4"`
		IPs []struct {
			Version string `json:"version"`
			Address string `json:"address"`
		} `json:"ips"`
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return netip.Prefix{}, "not JSON: " + describeJSONErr(err)
	}
	var addrs []string
	if r.IP4 != nil {
		addrs = append(addrs, r.IP4.IP)
	}
	for _, ip := range r.IPs {
		addrs = append(addrs, ip.Address)
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
			return p, ""
		}
	}
	if r.Code != 0 || r.Msg != "" {
		return netip.Prefix{}, "host-local's error answer: " + r.Msg
	}
	return netip.Prefix{}, "no ip4.ip or ips[].address in it"
}

// requestSubnet is the range the request asked host-local for: ipam.ranges[0][0].subnet,
// or the older ipam.subnet.
func requestSubnet(text string) netip.Prefix {
	var r struct {
		IPAM struct {
			Subnet string `json:"subnet"`
			Ranges [][]struct {
				Subnet string `json:"subnet"`
			} `json:"ranges"`
		} `json:"ipam"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))), &r) != nil {
		return netip.Prefix{}
	}
	s := r.IPAM.Subnet
	if len(r.IPAM.Ranges) > 0 && len(r.IPAM.Ranges[0]) > 0 {
		s = r.IPAM.Ranges[0][0].Subnet
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}
	}
	return p.Masked()
}
