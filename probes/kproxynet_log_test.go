package probes

import (
	"strings"
	"testing"
)

// TestKubeProxyLogWinsOverName: kubernetes/kubernetes#79515's kube-proxy v1.15.0 logs that
// it cannot find cbr0 while cbr0 exists: that fails, quoting the line; a later "Hns Network
// loaded" passes. RKE2's wins wrapper names the network it cannot get ("Calico"), so a
// node whose Calico network is gone is told so by name.
func TestKubeProxyLogWinsOverName(t *testing.T) {
	const nets = `[{"Name":"nat","Type":"ICS"},{"Name":"cbr0","Type":"L2Bridge"}]`
	proc := `[{"Name":"kube-proxy.exe","CommandLine":"c:\\k\\kube-proxy.exe --proxy-mode=kernelspace --network-name=cbr0"}]`
	issue := strings.Join([]string{
		`E0628 16:57:08.673912    1180 hnsV2.go:36] Network Id  not found`,
		`E0628 16:57:08.673912    1180 proxier.go:564] Unable to find HNS Network specified by cbr0. Please check network name and CNI deployment`,
		`E0628 16:57:09.679372    1180 hnsV2.go:36] Network Id  not found`,
		`E0628 16:57:09.679372    1180 proxier.go:564] Unable to find HNS Network specified by cbr0. Please check network name and CNI deployment`,
	}, "\r\n")
	files := func(log string) map[string]string {
		return map[string]string{"nodes/win-1/hns-networks.json": nets, "nodes/win-1/processes.json": proc, "nodes/win-1/kube-proxy.log": log}
	}
	f := clOne(t, kubeProxyNetwork{}, "win-1", clEv(files(issue)), Fail, `cannot find HNS network "cbr0", which exists`, "kubernetes/kubernetes#79515", "proxier.go:564")
	if f.Fix == nil || f.Fix.ID != "restart-kube-proxy" {
		t.Errorf("fix %+v", f.Fix)
	}
	loaded := issue + "\r\n" + `I0628 16:57:10.681234    1180 proxier.go:572] Hns Network loaded with info = {cbr0 6a1c L2Bridge [] }`
	clOne(t, kubeProxyNetwork{}, "win-1", clEv(files(loaded)), Pass, "kube-proxy uses HNS network cbr0")

	rke2 := `time="2024-05-02T10:01:02Z" level=error msg="could not get HNS network Calico via v2 api: Network name \"Calico\" not found"`
	clOne(t, kubeProxyNetwork{}, "win-1", clEv(map[string]string{"nodes/win-1/hns-networks.json": `[{"Name":"nat","Type":"ICS"}]`, "nodes/win-1/kube-proxy.log": rke2}),
		Fail, `pointed at HNS network "Calico", which does not exist`)
}
