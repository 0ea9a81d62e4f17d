package probes

import "testing"

// TestWincatByImageID: the microsoft/SDN scripts run the kubelet with
// --pod-infra-container-image=kubeletwin/pause; an operator who pulled Microsoft's pause
// and tagged it kubeletwin/pause has one image under both tags, and it carries wincat.exe.
// Only a kubeletwin/pause that is nothing else (the SDN Dockerfile's build) lacks it.
func TestWincatByImageID(t *testing.T) {
	const id = "sha256:5ae6b2e4c9a2a8e1d3a1f7b0e9c4d2a6b8f1e3c5d7a9b0c2e4f6a8b1d3c5e7f9"
	files := func(tags string) map[string]string {
		return map[string]string{
			"nodes/win-1/services.json":  `[{"Name":"docker","Status":"Running","StartType":"Automatic"}]`,
			"nodes/win-1/processes.json": `[{"Name":"kubelet.exe","CommandLine":"c:\\k\\kubelet.exe --pod-infra-container-image=kubeletwin/pause --network-plugin=cni"}]`,
			"nodes/win-1/images.json":    `[{"Id":"` + id + `","RepoTags":[` + tags + `]}]`,
		}
	}
	clOne(t, pauseImage{}, "win-1", clEv(files(`"kubeletwin/pause:latest","mcr.microsoft.com/oss/kubernetes/pause:3.6"`)), Pass,
		"carries wincat.exe", "the same image ID, tagged mcr.microsoft.com/oss/kubernetes/pause:3.6")
	clOne(t, pauseImage{}, "win-1", clEv(files(`"index.docker.io/kubeletwin/pause:latest"`)), Warn, "has no wincat.exe")
}
