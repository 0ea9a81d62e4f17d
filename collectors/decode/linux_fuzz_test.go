package decode

import "testing"

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
