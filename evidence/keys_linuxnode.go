package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// Linux worker evidence (this file is not keys_linux.go: that name would build it on
// Linux only): what the shell sweep prints, one frame per file, in the same
// framing as the Windows sweep (the contract shared by the sweep and the probes).
// Names start with "linux-" so a Linux file can never be mistaken for the
// Windows file of the same subject (routes.json is Get-NetRoute's).
const (
	FileLinuxOS              = "os.json"
	FileLinuxRoutes          = "linux-ip-route.json"
	FileLinuxAddrs           = "linux-ip-addr.json"
	FileLinuxLinks           = "linux-ip-link.json"
	FileLinuxCNI             = "linux-cni.txt"
	FileLinuxSwaps           = "linux-swaps.txt"
	FileLinuxSysctl          = "linux-sysctl.txt"
	FileLinuxSystemd         = "linux-systemd.txt"
	FileLinuxCmdlines        = "linux-cmdlines.txt"
	FileLinuxKubeletConfig   = "linux-kubelet-config.yaml"
	FileLinuxKubeProxyConfig = "linux-kube-proxy-config.yaml"
	FileLinuxContainerd      = "linux-containerd-config.toml"
	FileLinuxFlannelSubnet   = "linux-flannel-subnet.env"
)

// linuxKeys are the Linux node keys, in table order.
func linuxKeys() []Ref {
	return []Ref{LinuxOS, LinuxRoutes, LinuxAddrs, LinuxLinks, LinuxCNI, LinuxSwaps, LinuxSysctl,
		LinuxSystemd, LinuxCmdlines, LinuxKubeletConfig, LinuxKubeProxyConfig, LinuxContainerdConfig,
		LinuxFlannelSubnet}
}

// linuxKey is a Linux node key: the file as the sweep's shell prints it (LF, UTF-8).
func linuxKey[T any](name string, dec func(string, []byte) (T, error), m Meta) Key[T] {
	m.OS, m.Raw = Linux, true
	return NodeKey(name, dec, m)
}

// LinuxOS is nodes/<node>/os.json: the only file that says a node is Linux.
var LinuxOS Key[decode.LinuxOS] = linuxKey(FileLinuxOS, decode.DecodeLinuxOS, Meta{
	Command: "`printf` of `{\"Kind\":\"linux\",\"Hostname\":\"$(hostname)\",\"Kernel\":\"$(uname -r)\",\"OSImage\":\"<PRETTY_NAME of /etc/os-release>\",\"CollectedAt\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}`, JSON-escaped",
	Format:  "one object; `Kind` is `linux` (an absent os.json means a Windows node)",
})

// LinuxRoutes is nodes/<node>/linux-ip-route.json.
var LinuxRoutes Key[[]decode.IPRoute] = linuxKey(FileLinuxRoutes, decode.DecodeIPRoutes, Meta{
	Command: "`ip -j route show table main`",
	Format:  "iproute2 JSON list: `dst` (`default`, a CIDR or a bare address), `gateway`, `dev`, `protocol`, `scope`, `prefsrc`, `metric`, `flags`, `type` (`blackhole`, `unreachable`)",
})

// LinuxAddrs is nodes/<node>/linux-ip-addr.json.
var LinuxAddrs Key[[]decode.IPLink] = linuxKey(FileLinuxAddrs, decode.DecodeIPLinks, Meta{
	Command: "`ip -j addr show`",
	Format:  "iproute2 JSON list: `ifname`, `mtu`, `operstate`, `addr_info[]` (`family`, `local`, `prefixlen`); the empty `{}` items of iproute2 4.x are skipped",
})

// LinuxLinks is nodes/<node>/linux-ip-link.json.
var LinuxLinks Key[[]decode.IPLink] = linuxKey(FileLinuxLinks, decode.DecodeIPLinks, Meta{
	Command: "`ip -j -d link show`",
	Format:  "iproute2 JSON list: `ifname`, `mtu`, `linkinfo.info_kind` (`vxlan`, `bridge`) and for VXLAN `linkinfo.info_data` (`id` = VNI, `port`, `local`, `dev`)",
})

// LinuxCNI is nodes/<node>/linux-cni.txt.
var LinuxCNI Key[[]decode.CNIFile] = linuxKey(FileLinuxCNI, decode.DecodeCNIFiles, Meta{
	Command: "`head -v -c 65536 /etc/cni/net.d/*`",
	Format:  "coreutils `==> PATH <==` headers, each followed by the file; `.conf`, `.conflist` and `.json` files must be JSON (libcni loads only those)",
})

// LinuxSwaps is nodes/<node>/linux-swaps.txt.
var LinuxSwaps Key[[]decode.Swap] = linuxKey(FileLinuxSwaps, decode.DecodeSwaps, Meta{
	Command: "`cat /proc/swaps`",
	Format:  "the `Filename Type Size Used Priority` header, then one line per active swap area (none: swap is off)",
})

// LinuxSysctl is nodes/<node>/linux-sysctl.txt.
var LinuxSysctl Key[map[string]string] = linuxKey(FileLinuxSysctl, decode.DecodeSysctl, Meta{
	Command: "`sysctl net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables`",
	Format:  "`key = value` lines; a key the kernel lacks is on stderr (kept as the `.note`)",
})

// LinuxSystemd is nodes/<node>/linux-systemd.txt.
var LinuxSystemd Key[[]decode.Unit] = linuxKey(FileLinuxSystemd, decode.DecodeUnits, Meta{
	Command: "`systemctl show -p Id,ActiveState,SubState,UnitFileState containerd kubelet kube-proxy flanneld`",
	Format:  "`Key=Value` blocks separated by blank lines, one per unit; a unit that does not exist has `ActiveState=inactive` and an empty `UnitFileState`",
})

// LinuxCmdlines is nodes/<node>/linux-cmdlines.txt.
var LinuxCmdlines Key[[]decode.LinuxProcess] = linuxKey(FileLinuxCmdlines, decode.DecodeLinuxProcesses, Meta{
	Command: "`ps -eo pid=,args=` filtered to kubelet, kube-proxy, containerd, flanneld and calico-node",
	Format:  "`PID ARGS` lines (ps joins argv with spaces; no quoting survives)",
})

// LinuxKubeletConfig is nodes/<node>/linux-kubelet-config.yaml.
var LinuxKubeletConfig Key[decode.LinuxKubeletConfig] = linuxKey(FileLinuxKubeletConfig, decode.DecodeLinuxKubeletConfig, Meta{
	Command: "`cat` of the file the running kubelet's `--config` names, else `/var/lib/kubelet/config.yaml`",
	Format:  "a KubeletConfiguration (YAML or JSON): `clusterDNS`, `clusterDomain`, `podCIDR`, `failSwapOn`, `memorySwap.swapBehavior`, `featureGates`",
})

// LinuxKubeProxyConfig is nodes/<node>/linux-kube-proxy-config.yaml.
var LinuxKubeProxyConfig Key[decode.KubeProxyConfig] = linuxKey(FileLinuxKubeProxyConfig, decode.DecodeKubeProxyConfig, Meta{
	Command: "`cat` of the file kube-proxy's `--config` names, else `/var/lib/kube-proxy/kube-proxy-config.yaml`",
	Format:  "a KubeProxyConfiguration (YAML or JSON): `clusterCIDR`, `mode`. kubeadm clusters keep it in the kube-proxy ConfigMap instead (the `.err` here)",
})

// LinuxContainerdConfig is nodes/<node>/linux-containerd-config.toml.
var LinuxContainerdConfig Key[decode.LinuxContainerdConfig] = linuxKey(FileLinuxContainerd, decode.DecodeLinuxContainerdConfig, Meta{
	Command: "`cat /etc/containerd/config.toml`",
	Format:  "TOML, config version 1, 2 or 3: the CRI plugin's `cni.bin_dir`/`conf_dir`, `sandbox_image`, runc's `SystemdCgroup`",
})

// LinuxFlannelSubnet is nodes/<node>/linux-flannel-subnet.env.
var LinuxFlannelSubnet Key[decode.FlannelSubnet] = linuxKey(FileLinuxFlannelSubnet, decode.DecodeFlannelSubnet, Meta{
	Command: "`cat /run/flannel/subnet.env`",
	Format:  "`KEY=VALUE` lines: `FLANNEL_NETWORK`, `FLANNEL_SUBNET`, `FLANNEL_MTU`, `FLANNEL_IPMASQ`. Nodes without flannel have the `.err`",
})
