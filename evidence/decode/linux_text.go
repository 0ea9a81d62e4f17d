package decode

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// linuxLines is the file as UTF-8 lines, without a trailing empty line.
func linuxLines(file string, b []byte) ([]string, error) {
	t, err := Text(file, b)
	if err != nil {
		return nil, err
	}
	s := strings.TrimRight(strings.ReplaceAll(string(t), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// CNIFile is one file of /etc/cni/net.d as `head -v` printed it.
type CNIFile struct {
	Path    string
	Content string
	// The parsed config of a .conf, .conflist or .json file (libcni loads no other).
	Name    string   // network name
	Types   []string // plugin types: the config's own, or each of a conflist's plugins
	Bridge  string   // the bridge plugin's "bridge" (cni0, cnio0)
	Subnets []string // host-local IPAM subnets: ranges[][].subnet and the older ipam.subnet
}

// Config says whether libcni would load the file as a network config.
func (f CNIFile) Config() bool {
	switch path.Ext(f.Path) {
	case ".conf", ".conflist", ".json":
		return true
	}
	return false
}

// DecodeCNIFiles reads linux-cni.txt: `head -v` of every file in /etc/cni/net.d, each
// after its `==> PATH <==` header. A config file that is not JSON is an error, since
// libcni refuses it too and the node then has no pod network.
func DecodeCNIFiles(file string, b []byte) ([]CNIFile, error) {
	lines, err := linuxLines(file, b)
	if err != nil {
		return nil, err
	}
	var out []CNIFile
	var body []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Content = strings.TrimSuffix(strings.Join(body, "\n"), "\n")
		}
		body = nil
	}
	for i, l := range lines {
		if p, ok := strings.CutPrefix(l, "==> "); ok && strings.HasSuffix(p, " <==") {
			flush()
			out = append(out, CNIFile{Path: strings.TrimSuffix(p, " <==")})
			continue
		}
		if len(out) == 0 {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, fail(file, nil, "line %d: expected a `==> PATH <==` header (head -v), found %.60q", i+1, l)
		}
		body = append(body, l)
	}
	flush()
	for i := range out {
		// head -v separates files with a blank line; it is not part of the file.
		out[i].Content = strings.TrimRight(out[i].Content, "\n")
		if !out[i].Config() {
			continue
		}
		if err := parseCNIFile(&out[i]); err != nil {
			return nil, fail(file, err, "%s: not a JSON CNI config: %v", out[i].Path, describeJSONErr(err))
		}
	}
	return out, nil
}

func parseCNIFile(f *CNIFile) error {
	var root map[string]any
	if err := json.Unmarshal([]byte(f.Content), &root); err != nil {
		return err
	}
	f.Name = str(get(root, "name"))
	plugins := []any{root}
	if ps, ok := get(root, "plugins").([]any); ok {
		plugins = ps
	}
	for _, p := range plugins {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if t := str(get(m, "type")); t != "" {
			f.Types = append(f.Types, t)
		}
		if br := str(get(m, "bridge")); br != "" && f.Bridge == "" {
			f.Bridge = br
		}
		ipam, _ := get(m, "ipam").(map[string]any)
		if s := str(get(ipam, "subnet")); s != "" {
			f.Subnets = append(f.Subnets, s)
		}
		ranges, _ := get(ipam, "ranges").([]any)
		for _, set := range ranges {
			rs, _ := set.([]any)
			for _, r := range rs {
				if rm, ok := r.(map[string]any); ok {
					if s := str(get(rm, "subnet")); s != "" {
						f.Subnets = append(f.Subnets, s)
					}
				}
			}
		}
	}
	return nil
}

// Swap is one active swap area of /proc/swaps.
type Swap struct {
	Filename, Type string
	SizeKiB        int64
	UsedKiB        int64
	Priority       int
}

// DecodeSwaps reads linux-swaps.txt (/proc/swaps): a header, then one line per area. The
// kernel escapes spaces in names as \040.
func DecodeSwaps(file string, b []byte) ([]Swap, error) {
	lines, err := linuxLines(file, b)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "Filename") {
		return nil, fail(file, nil, "no `Filename Type Size Used Priority` header: not /proc/swaps")
	}
	var out []Swap
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			return nil, fail(file, nil, "line %d: %d fields, /proc/swaps has 5", i+2, len(f))
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		used, err2 := strconv.ParseInt(f[3], 10, 64)
		prio, err3 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fail(file, nil, "line %d: size, used and priority must be numbers: %.60q", i+2, l)
		}
		out = append(out, Swap{Filename: strings.ReplaceAll(f[0], `\040`, " "), Type: f[1], SizeKiB: size, UsedKiB: used, Priority: prio})
	}
	return out, nil
}

// DecodeSysctl reads linux-sysctl.txt: `key = value` lines (procps; busybox prints
// `key=value`). A key that does not exist is on stderr, so it is simply absent here.
func DecodeSysctl(file string, b []byte) (map[string]string, error) {
	lines, err := linuxLines(file, b)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fail(file, nil, "line %d: expected `key = value` (sysctl's output), found %.60q", i+1, l)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// Unit is one systemd unit's state from `systemctl show`.
type Unit struct {
	ID            string // "kubelet.service"
	ActiveState   string // active, inactive, failed, activating
	SubState      string // running, dead, auto-restart
	UnitFileState string // enabled, disabled, static, masked; "" when no unit file exists
}

// Name is the unit without its ".service" suffix.
func (u Unit) Name() string { return strings.TrimSuffix(u.ID, ".service") }

// Running says whether systemd reports it active and running.
func (u Unit) Running() bool { return u.ActiveState == "active" }

// Enabled says whether it starts at boot.
func (u Unit) Enabled() bool {
	return u.UnitFileState == "enabled" || u.UnitFileState == "enabled-runtime" || u.UnitFileState == "static"
}

// Exists says whether a unit file was found (systemctl shows a unit for any name).
func (u Unit) Exists() bool { return u.UnitFileState != "" }

// FindUnit looks a unit up by name, with or without ".service".
func FindUnit(us []Unit, name string) (Unit, bool) {
	for _, u := range us {
		if u.Name() == strings.TrimSuffix(name, ".service") {
			return u, true
		}
	}
	return Unit{}, false
}

// DecodeUnits reads linux-systemd.txt: `Key=Value` blocks, one per unit, separated by
// blank lines. A block without Id= is refused.
func DecodeUnits(file string, b []byte) ([]Unit, error) {
	lines, err := linuxLines(file, b)
	if err != nil {
		return nil, err
	}
	var out []Unit
	var cur *Unit
	end := func(at int) error {
		if cur != nil && cur.ID == "" {
			return fail(file, nil, "the block ending at line %d has no Id=", at)
		}
		if cur != nil {
			out = append(out, *cur)
		}
		cur = nil
		return nil
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			if err := end(i); err != nil {
				return nil, err
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fail(file, nil, "line %d: expected Key=Value (systemctl show), found %.60q", i+1, l)
		}
		if cur == nil {
			cur = &Unit{}
		}
		switch k {
		case "Id":
			cur.ID = v
		case "ActiveState":
			cur.ActiveState = v
		case "SubState":
			cur.SubState = v
		case "UnitFileState":
			cur.UnitFileState = v
		}
	}
	if err := end(len(lines)); err != nil {
		return nil, err
	}
	return out, nil
}

// LinuxProcess is one line of `ps -eo pid=,args=`.
type LinuxProcess struct {
	PID  int
	Args []string
}

// Name is the program's base name ("kubelet").
func (p LinuxProcess) Name() string {
	if len(p.Args) == 0 {
		return ""
	}
	return path.Base(p.Args[0])
}

// DecodeLinuxProcesses reads linux-cmdlines.txt.
func DecodeLinuxProcesses(file string, b []byte) ([]LinuxProcess, error) {
	lines, err := linuxLines(file, b)
	if err != nil {
		return nil, err
	}
	var out []LinuxProcess
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 || len(f) < 2 {
			return nil, fail(file, nil, "line %d: expected `PID ARGS` (ps -eo pid=,args=), found %.60q", i+1, l)
		}
		out = append(out, LinuxProcess{PID: pid, Args: f[1:]})
	}
	return out, nil
}

// FlannelSubnet is /run/flannel/subnet.env, which flanneld writes for its CNI plugin.
type FlannelSubnet struct {
	Network, Subnet string
	MTU             int
	IPMasq          bool
}

// DecodeFlannelSubnet reads linux-flannel-subnet.env.
func DecodeFlannelSubnet(file string, b []byte) (FlannelSubnet, error) {
	var s FlannelSubnet
	lines, err := linuxLines(file, b)
	if err != nil {
		return s, err
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return s, fail(file, nil, "line %d: expected KEY=VALUE (subnet.env), found %.60q", i+1, l)
		}
		switch k {
		case "FLANNEL_NETWORK":
			s.Network = v
		case "FLANNEL_SUBNET":
			s.Subnet = v
		case "FLANNEL_MTU":
			if s.MTU, err = strconv.Atoi(v); err != nil {
				return s, fail(file, err, "line %d: FLANNEL_MTU %q is not a number", i+1, v)
			}
		case "FLANNEL_IPMASQ":
			s.IPMasq = v == "true"
		}
	}
	if s.Network == "" && s.Subnet == "" {
		return s, fail(file, nil, "neither FLANNEL_NETWORK nor FLANNEL_SUBNET: not flannel's subnet.env")
	}
	return s, nil
}
