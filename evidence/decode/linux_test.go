package decode

import (
	"slices"
	"strings"
	"testing"
)

// The samples are what the commands print on an Ubuntu 20.04 worker built by
// kubernetes-the-hard-way (iproute2 5.5, procps 3.3.16, systemd 245).

const ipRouteSample = `[{"dst":"default","gateway":"10.240.0.1","dev":"ens4","protocol":"dhcp","prefsrc":"10.240.0.21","metric":100,"flags":[]},` +
	`{"dst":"10.200.0.0/24","gateway":"10.240.0.20","dev":"ens4","flags":[]},` +
	`{"dst":"10.200.1.0/24","dev":"cnio0","protocol":"kernel","scope":"link","prefsrc":"10.200.1.1","flags":["linkdown"]},` +
	`{"type":"blackhole","dst":"10.200.9.0/24","flags":[]},` +
	`{"dst":"10.240.0.1","dev":"ens4","protocol":"dhcp","scope":"link","prefsrc":"10.240.0.21","metric":100,"flags":[]}]`

func TestDecodeIPRoutes(t *testing.T) {
	rs, err := DecodeIPRoutes("r", []byte(ipRouteSample+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 {
		t.Fatalf("%d routes", len(rs))
	}
	want := []string{"0.0.0.0/0", "10.200.0.0/24", "10.200.1.0/24", "10.200.9.0/24", "10.240.0.1/32"}
	for i, r := range rs {
		p, ok := r.Prefix()
		if !ok || p.String() != want[i] {
			t.Errorf("route %d: prefix %v %v, want %s", i, p, ok, want[i])
		}
	}
	if rs[1].Gateway != "10.240.0.20" || !rs[1].Forwards() || rs[2].Forwards() || rs[3].Forwards() {
		t.Errorf("gateway/forwards wrong: %+v", rs)
	}
	for _, bad := range []string{``, `{"dst":"default"}`, `[{"gateway":"1.2.3.4"}]`, `[{"dst":"default","metric":"x"}]`} {
		if _, err := DecodeIPRoutes("r", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "r: ") {
			t.Errorf("%q: err %v, want one naming the file", bad, err)
		}
	}
	if rs, err := DecodeIPRoutes("r", []byte("[]\n")); err != nil || len(rs) != 0 {
		t.Errorf("empty table: %v %v", rs, err)
	}
}

func TestDecodeIPLinks(t *testing.T) {
	b := `[{},{"ifindex":2,"ifname":"ens4","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1460,"operstate":"UP",` +
		`"addr_info":[{"family":"inet","local":"10.240.0.21","prefixlen":24}]},` +
		`{"ifindex":5,"ifname":"flannel.4096","mtu":1410,"operstate":"UNKNOWN","linkinfo":{"info_kind":"vxlan",` +
		`"info_data":{"id":4096,"local":"10.240.0.21","dev":"ens4","port":4789,"ageing":300,"udpcsum":false}}},` +
		`{"ifindex":6,"ifname":"cnio0","mtu":1500,"linkinfo":{"info_kind":"bridge","info_data":{"forward_delay":1500,"stp_state":0}}}]`
	ls, err := DecodeIPLinks("l", []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 || ls[0].IfName != "ens4" || !ls[0].HasAddr("10.240.0.21") {
		t.Fatalf("links: %+v", ls)
	}
	v, ok := ls[1].VXLAN()
	if !ok || v.ID != 4096 || v.Port != 4789 || v.Dev != "ens4" || ls[1].MTU != 1410 {
		t.Errorf("vxlan: %+v %v", v, ok)
	}
	if _, ok := ls[2].VXLAN(); ok || ls[2].Kind() != "bridge" {
		t.Errorf("bridge read as vxlan: %+v", ls[2])
	}
}

const cniSample = `==> /etc/cni/net.d/10-bridge.conf <==
{
    "cniVersion": "0.4.0",
    "name": "bridge",
    "type": "bridge",
    "bridge": "cnio0",
    "isGateway": true,
    "ipMasq": true,
    "ipam": {
        "type": "host-local",
        "ranges": [
          [{"subnet": "10.200.1.0/24"}]
        ],
        "routes": [{"dst": "0.0.0.0/0"}]
    }
}

==> /etc/cni/net.d/99-loopback.conf <==
{
    "cniVersion": "0.4.0",
    "name": "lo",
    "type": "loopback"
}

==> /etc/cni/net.d/README <==
not a config
`

func TestDecodeCNIFiles(t *testing.T) {
	fs, err := DecodeCNIFiles("c", []byte(cniSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 {
		t.Fatalf("%d files: %+v", len(fs), fs)
	}
	br := fs[0]
	if br.Path != "/etc/cni/net.d/10-bridge.conf" || br.Name != "bridge" || br.Bridge != "cnio0" ||
		!slices.Equal(br.Subnets, []string{"10.200.1.0/24"}) || !slices.Equal(br.Types, []string{"bridge"}) {
		t.Errorf("bridge: %+v", br)
	}
	if fs[1].Name != "lo" || fs[2].Config() || fs[2].Content != "not a config" {
		t.Errorf("others: %+v", fs[1:])
	}
	conflist := "==> /etc/cni/net.d/10-flannel.conflist <==\n" +
		`{"name":"cbr0","cniVersion":"0.3.1","plugins":[{"type":"flannel","delegate":{"hairpinMode":true,"isDefaultGateway":true}},{"type":"portmap","capabilities":{"portMappings":true}}]}`
	fs, err = DecodeCNIFiles("c", []byte(conflist))
	if err != nil || len(fs) != 1 || !slices.Equal(fs[0].Types, []string{"flannel", "portmap"}) {
		t.Errorf("conflist: %+v %v", fs, err)
	}
	for _, bad := range []string{"{\"name\":\"x\"}\n", "==> /etc/cni/net.d/10-bridge.conf <==\n{\"name\": \"bridge\",\n"} {
		if _, err := DecodeCNIFiles("c", []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDecodeSwapsSysctlUnits(t *testing.T) {
	sw, err := DecodeSwaps("s", []byte("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img                               file\t\t2097148\t\t0\t\t-2\n/mnt/my\\040swap file 10 1 -3\n"))
	if err != nil || len(sw) != 2 || sw[0].SizeKiB != 2097148 || sw[0].Priority != -2 || sw[1].Filename != "/mnt/my swap" {
		t.Errorf("swaps: %+v %v", sw, err)
	}
	if sw, err := DecodeSwaps("s", []byte("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")); err != nil || len(sw) != 0 {
		t.Errorf("swap off: %+v %v", sw, err)
	}
	if _, err := DecodeSwaps("s", []byte("NAME TYPE SIZE USED PRIO\n")); err == nil {
		t.Error("swapon --show accepted as /proc/swaps")
	}
	sc, err := DecodeSysctl("y", []byte("net.ipv4.ip_forward = 1\nnet.bridge.bridge-nf-call-iptables=1\n"))
	if err != nil || sc["net.ipv4.ip_forward"] != "1" || sc["net.bridge.bridge-nf-call-iptables"] != "1" {
		t.Errorf("sysctl: %v %v", sc, err)
	}
	if _, err := DecodeSysctl("y", []byte("sysctl: cannot stat /proc/sys/x: No such file\n")); err == nil {
		t.Error("an error line accepted as a key")
	}
	us, err := DecodeUnits("u", []byte("Id=containerd.service\nActiveState=active\nSubState=running\nUnitFileState=enabled\n\n"+
		"Id=kubelet.service\nActiveState=failed\nSubState=failed\nUnitFileState=enabled\n\nId=flanneld.service\nActiveState=inactive\nSubState=dead\nUnitFileState=\n"))
	if err != nil || len(us) != 3 {
		t.Fatalf("units: %+v %v", us, err)
	}
	k, ok := FindUnit(us, "kubelet")
	if !ok || k.Running() || !k.Enabled() {
		t.Errorf("kubelet: %+v", k)
	}
	if f, _ := FindUnit(us, "flanneld.service"); f.Exists() || f.Running() {
		t.Errorf("flanneld: %+v", f)
	}
	if _, err := DecodeUnits("u", []byte("ActiveState=active\n")); err == nil {
		t.Error("a block without Id accepted")
	}
}

func TestDecodeProcessesAndSubnet(t *testing.T) {
	ps, err := DecodeLinuxProcesses("p", []byte("  812 /bin/containerd\n 1023 /usr/local/bin/kubelet --config=/var/lib/kubelet/kubelet-config.yaml --v=2\n"))
	if err != nil || len(ps) != 2 || ps[1].Name() != "kubelet" || ps[1].PID != 1023 || ps[1].Args[1] != "--config=/var/lib/kubelet/kubelet-config.yaml" {
		t.Errorf("ps: %+v %v", ps, err)
	}
	if _, err := DecodeLinuxProcesses("p", []byte("kubelet --v=2\n")); err == nil {
		t.Error("a line without a PID accepted")
	}
	s, err := DecodeFlannelSubnet("f", []byte("FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n"))
	if err != nil || s.Network != "10.244.0.0/16" || s.MTU != 1450 || !s.IPMasq {
		t.Errorf("subnet.env: %+v %v", s, err)
	}
	if _, err := DecodeFlannelSubnet("f", []byte("FLANNEL_MTU=big\nFLANNEL_NETWORK=x\n")); err == nil {
		t.Error("a bad MTU accepted")
	}
}

func TestDecodeLinuxConfigs(t *testing.T) {
	// kubernetes-the-hard-way 79a3f79 (v1.21.0) docs/09-bootstrapping-kubernetes-workers.md.
	k, err := DecodeLinuxKubeletConfig("k", []byte("kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n"+
		"clusterDomain: \"cluster.local\"\nclusterDNS:\n  - \"10.32.0.10\"\npodCIDR: \"10.200.1.0/24\"\nresolvConf: \"/run/systemd/resolve/resolv.conf\"\n"))
	if err != nil || !slices.Equal(k.ClusterDNS, []string{"10.32.0.10"}) || k.PodCIDR != "10.200.1.0/24" || k.FailSwapOn != nil {
		t.Errorf("kubelet: %+v %v", k, err)
	}
	// kubernetes-the-hard-way 52eb26d configs/kubelet-config.yaml.
	k, err = DecodeLinuxKubeletConfig("k", []byte("kind: KubeletConfiguration\nfailSwapOn: false\nmemorySwap:\n  swapBehavior: NoSwap\n"))
	if err != nil || k.FailSwapOn == nil || *k.FailSwapOn || k.MemorySwap.SwapBehavior != "NoSwap" {
		t.Errorf("kubelet swap: %+v %v", k, err)
	}
	if _, err := DecodeLinuxKubeletConfig("k", []byte("kind: KubeProxyConfiguration\n")); err == nil {
		t.Error("a kube-proxy config accepted as the kubelet's")
	}
	p, err := DecodeKubeProxyConfig("p", []byte("kind: KubeProxyConfiguration\napiVersion: kubeproxy.config.k8s.io/v1alpha1\n"+
		"clientConnection:\n  kubeconfig: \"/var/lib/kube-proxy/kubeconfig\"\nmode: \"iptables\"\nclusterCIDR: \"10.200.0.0/16\"\n"))
	if err != nil || p.ClusterCIDR != "10.200.0.0/16" || p.Mode != "iptables" {
		t.Errorf("kube-proxy: %+v %v", p, err)
	}
	if _, err := DecodeKubeProxyConfig("p", []byte("clusterCIDR: [\n")); err == nil {
		t.Error("bad YAML accepted")
	}
	// v1 (KTHW 2021), v2 (KTHW 2025), v3.
	for _, tc := range []struct {
		toml, bin string
		systemd   bool
	}{
		{"[plugins]\n  [plugins.cri.containerd]\n    snapshotter = \"overlayfs\"\n", "", false},
		{"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n    SystemdCgroup = true\n" +
			"[plugins.\"io.containerd.grpc.v1.cri\".cni]\n  bin_dir = \"/opt/cni/bin\"\n  conf_dir = \"/etc/cni/net.d\"\n", "/opt/cni/bin", true},
		{"version = 3\n[plugins.'io.containerd.cri.v1.runtime'.cni]\n  bin_dir = '/usr/lib/cni'\n[plugins.'io.containerd.cri.v1.images'.pinned_images]\n  sandbox = 'registry.k8s.io/pause:3.10'\n", "/usr/lib/cni", false},
	} {
		c, err := DecodeLinuxContainerdConfig("t", []byte(tc.toml))
		if err != nil || c.CNIBinDir != tc.bin || (c.SystemdCgroup != nil && *c.SystemdCgroup) != tc.systemd {
			t.Errorf("%q: %+v %v", tc.toml, c, err)
		}
	}
	if _, err := DecodeLinuxContainerdConfig("t", []byte("[plugins\n")); err == nil {
		t.Error("bad TOML accepted")
	}
	if o, err := DecodeLinuxOS("o", []byte(`{"Kind":"linux","Hostname":"node-1","Kernel":"5.4.0-100-generic"}`)); err != nil || o.Kind != "linux" {
		t.Errorf("os.json: %+v %v", o, err)
	}
	if _, err := DecodeLinuxOS("o", []byte(`{"Hostname":"node-1"}`)); err == nil {
		t.Error("os.json without Kind accepted")
	}
}

// The Linux decoders read what a shell printed on a customer's node: whatever the bytes,
// a value or an error, never a panic.

func FuzzLinuxJSON(f *testing.F) {
	f.Add([]byte(ipRouteSample))
	f.Add([]byte(`[{},{"ifname":"flannel.1","mtu":1450,"linkinfo":{"info_kind":"vxlan","info_data":{"id":1,"port":8472}}}]`))
	f.Add([]byte(`{"Kind":"linux","Hostname":"node-0"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if rs, err := DecodeIPRoutes("f", b); err == nil {
			for _, r := range rs {
				_, _ = r.Prefix()
				_ = r.Forwards()
			}
		}
		if ls, err := DecodeIPLinks("f", b); err == nil {
			for _, l := range ls {
				_, _ = l.VXLAN()
			}
		}
		_, _ = DecodeLinuxOS("f", b)
	})
}

func FuzzLinuxText(f *testing.F) {
	f.Add([]byte(cniSample))
	f.Add([]byte("Filename\tType\tSize\tUsed\tPriority\n/swap.img file 2097148 0 -2\n"))
	f.Add([]byte("net.ipv4.ip_forward = 1\n"))
	f.Add([]byte("Id=kubelet.service\nActiveState=active\n\nId=x\n"))
	f.Add([]byte(" 1023 /usr/local/bin/kubelet --v=2\n"))
	f.Add([]byte("FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_MTU=1450\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeCNIFiles("f", b)
		_, _ = DecodeSwaps("f", b)
		_, _ = DecodeSysctl("f", b)
		_, _ = DecodeUnits("f", b)
		_, _ = DecodeLinuxProcesses("f", b)
		_, _ = DecodeFlannelSubnet("f", b)
	})
}

func FuzzLinuxConfigs(f *testing.F) {
	f.Add([]byte("kind: KubeletConfiguration\nclusterDNS:\n- 10.32.0.10\nfailSwapOn: false\n"))
	f.Add([]byte("kind: KubeProxyConfiguration\nclusterCIDR: 10.200.0.0/16\n"))
	f.Add([]byte("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\nbin_dir = \"/opt/cni/bin\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeLinuxKubeletConfig("f", b)
		_, _ = DecodeKubeProxyConfig("f", b)
		_, _ = DecodeLinuxContainerdConfig("f", b)
	})
}
