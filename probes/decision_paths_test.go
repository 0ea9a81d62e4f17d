package probes

import (
	"testing"
)

// The paths of the second round's probes that no scenario takes: each probe's decision
// from the evidence alone, passing and failing.

func TestKubeProxyHealthPaths(t *testing.T) {
	at := func(status int, errText string) string {
		return `{"BindAddress":"0.0.0.0:10256","From":"default","Url":"http://127.0.0.1:10256/healthz","ProcessId":3120,"StatusCode":` +
			itoa(status) + `,"Content":"{}","Error":"` + errText + `"}`
	}
	const hz, log = "nodes/win-1/kube-proxy-healthz.json", "nodes/win-1/kube-proxy.log"
	clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{hz: at(200, "")}), Pass, "answered 200 at http://127.0.0.1:10256/healthz")
	f := clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{hz: at(503, "The remote server returned an error: (503) Server Unavailable.")}),
		Fail, "answers 503")
	if f.Fix == nil || f.Fix.ID != "restart-kube-proxy-healthz" {
		t.Errorf("503: fix %+v", f.Fix)
	}
	clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{hz: at(0, "Unable to connect to the remote server")}), Fail,
		"does not answer", "Unable to connect")
	clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{hz + ".err": "kube-proxy is not running\n"}), Skip, "SVC-KUBEPROXY")
	// No answer recorded (evidence from before the snippet): the log decides.
	failed := `E0301 07:31:22.061234    3120 server.go:598] "Healthz server failed" err="listen tcp 0.0.0.0:10256: bind: address in use"`
	clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{log: failed}), Fail, "log says its healthz server failed", "Healthz server failed")
	clOne(t, kubeProxyHealth{}, "win-1", clEv(map[string]string{log: `I0301 07:31:22.046108    3120 server_windows.go:118] "Using Kernelspace Proxier."`}),
		Skip, "no answer of kube-proxy's health port recorded")
}

func TestNetMTUPaths(t *testing.T) {
	const nets, ifs = "nodes/win-1/hns-networks.json", "nodes/win-1/net-interfaces.json"
	overlay := `[{"Name":"vxlan0","Type":"Overlay"}]`
	mtu := func(physical, pod int) string {
		podIf := ""
		if pod > 0 {
			podIf = `,{"InterfaceAlias":"vEthernet (abc)","NlMtu":` + itoa(pod) + `,"CompartmentId":3,"ConnectionState":"Connected"}`
		}
		return `{"IPInterfaces":[{"InterfaceAlias":"vEthernet (Ethernet)","NlMtu":1500,"CompartmentId":1}` + podIf + `],` +
			`"Adapters":[{"Name":"Ethernet","MtuSize":` + itoa(physical) + `,"Virtual":"False","Status":"Up"},{"Name":"vEthernet (Ethernet)","MtuSize":1500,"Virtual":"True","Status":"Up"}]}`
	}
	clOne(t, netMTU{}, "win-1", clEv(map[string]string{nets: `[{"Name":"cbr0","Type":"L2Bridge"}]`}), Pass, "no Overlay HNS network")
	clOne(t, netMTU{}, "win-1", clEv(map[string]string{nets: overlay, ifs: mtu(1500, 0)}), Pass, "1450 + 50 bytes of VXLAN fits the uplink's 1500")
	// A pod interface set to 1500 by hand (or a CNI MTU setting) overflows a 1500 uplink.
	clOne(t, netMTU{}, "win-1", clEv(map[string]string{nets: overlay, ifs: mtu(1500, 1500)}), Fail, "grow to 1550", "vEthernet (abc)")
	// Jumbo frames on the uplink leave room.
	clOne(t, netMTU{}, "win-1", clEv(map[string]string{nets: overlay, ifs: mtu(9014, 1500)}), Pass, "fits the uplink's 9014")
	clOne(t, netMTU{}, "win-1", clEv(map[string]string{nets: overlay, ifs: `{"IPInterfaces":[{"NlMtu":1500,"CompartmentId":1}]}`}), Skip, "no physical adapter")
}

func TestHostResourcesPaths(t *testing.T) {
	const p = "nodes/win-1/resources.json"
	res := func(inUse, excluded int, committed, limit int64) string {
		return `{"DynamicPortStart":49152,"DynamicPortCount":16384,"ExcludedPorts":` + itoa(excluded) + `,"TCPConnections":300,"DynamicPortsInUse":` + itoa(inUse) +
			`,"TopOwners":[{"ProcessId":2904,"Name":"kubelet","Count":` + itoa(inUse) + `}],"TotalMemoryKB":16776740,"FreeMemoryKB":9123456,` +
			`"CommittedBytes":` + itoa(int(committed)) + `,"CommitLimit":` + itoa(int(limit)) + `}`
	}
	clOne(t, hostResources{}, "win-1", clEv(map[string]string{p: res(87, 0, 7<<30, 18<<30)}), Pass, "87 of 16384 dynamic TCP ports")
	f := clOne(t, hostResources{}, "win-1", clEv(map[string]string{p: res(13500, 0, 7<<30, 18<<30)}), Warn, "near exhaustion", "kubelet (pid 2904) 13500")
	if f.Fix == nil || f.Fix.ID != "free-dynamic-ports" {
		t.Errorf("ports: fix %+v", f.Fix)
	}
	clOne(t, hostResources{}, "win-1", clEv(map[string]string{p: res(100, 15680, 7<<30, 18<<30)}), Fail, "15780 of 16384", "15680 excluded")
	f = clOne(t, hostResources{}, "win-1", clEv(map[string]string{p: res(87, 0, 179<<27, 180<<27)}), Fail, "at the commit limit")
	if f.Fix == nil || f.Fix.ID != "free-commit" {
		t.Errorf("commit: fix %+v", f.Fix)
	}
}

func TestRuntimeCNIPaths(t *testing.T) {
	const dirs, cni = "nodes/win-1/cni-dirs.json", "nodes/win-1/cni-config.json"
	conf := `{"name":"vxlan0","type":"flannel","delegate":{"type":"win-overlay"}}`
	d := func(confFiles, binFiles string) string {
		return `{"ConfDir":"C:\\etc\\cni\\net.d","ConfDirFrom":"config.toml","ConfFiles":` + confFiles +
			`,"BinDir":"C:\\opt\\cni\\bin","BinDirFrom":"config.toml","BinFiles":` + binFiles + `}`
	}
	all := `["flannel.exe","host-local.exe","win-overlay.exe"]`
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`["10-vxlan0.conf"]`, all), cni: conf}), Pass, "conf_dir holds 10-vxlan0.conf")
	// containerd config regenerated: conf_dir back to the default, the config elsewhere.
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`[]`, all), cni: conf}), Fail, "holds no CNI config", "exists in another folder")
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`["10-vxlan0.conf"]`, `["flannel.exe"]`), cni: conf}), Fail, `"win-overlay" has no win-overlay.exe`)
	// crictl could not reach containerd's pipe while containerd runs.
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`["10-vxlan0.conf"]`, all), cni: conf,
		"nodes/win-1/images.json.err": "exit 1\ncrictl : time=\"2024-01-01T00:00:00Z\" level=fatal msg=\"validate service connection: validate CRI v1 image API for endpoint \\\"npipe:////./pipe/containerd-containerd\\\": rpc error: code = Unavailable desc = connection error\"\n"}),
		Fail, "crictl could not talk to containerd (images.json)")
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs + ".err": "exit 1\nno containerd config at C:\\Program Files\\containerd\\config.toml\n"}), Skip, "not a containerd node")
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`["10-vxlan0.conf"]`, all),
		"nodes/win-1/services.json": `[{"Name":"containerd","State":"Stopped","StartMode":"Auto"}]`}), Skip, "containerd is not running")
}
