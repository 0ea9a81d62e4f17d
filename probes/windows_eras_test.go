package probes

import "testing"

// TestHostPrereqByKubeletRelease: a Windows Server version 1803 host (17134) is within
// the support of a v1.12 kubelet (v1.9-v1.13 docs: 1709 and later) and passes; the same
// host under a v1.20 kubelet, or with no kubelet version to go by, fails against Windows
// Server 2019; Windows Server 2016 fails under v1.9 too.
func TestHostPrereqByKubeletRelease(t *testing.T) {
	files := func(build, kubelet string) map[string]string {
		m := map[string]string{"nodes/win-1/host.json": `{"CurrentBuild":"` + build + `","UBR":100,"ContainersFeature":1}`}
		if kubelet != "" {
			n := clWinNode("win-1")
			n.Status.NodeInfo.KubeletVersion = kubelet
			m["cluster/nodes.json"] = string(clList(t, n))
		}
		return m
	}
	clOne(t, hostPrereq{}, "win-1", clEv(files("17134", "v1.12.10")), Pass, "Windows Server version 1709 or later", "v1.12.10", "Kubernetes v1.9")
	clOne(t, hostPrereq{}, "win-1", clEv(files("17134", "v1.20.4")), Fail, "older than Windows Server 2019 (17763)", "v1.20.4")
	clOne(t, hostPrereq{}, "win-1", clEv(files("17134", "")), Fail, "older than Windows Server 2019 (17763)", "not in the evidence")
	clOne(t, hostPrereq{}, "win-1", clEv(files("14393", "v1.10.3")), Fail, "older than Windows Server version 1709 (16299)")
	clOne(t, hostPrereq{}, "win-1", clEv(files("14393", "v1.7.2")), Pass, "Windows Server 2016 or later")
	clOne(t, hostPrereq{}, "win-1", clEv(files("20348", "v1.29.7")), Pass, "Windows Server 2019 or later")
}
