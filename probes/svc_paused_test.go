package probes

import (
	"slices"
	"testing"
)

// TestServicePausedWithoutProcesses: services.json alone decides a Paused kubelet (a
// pause request's state: its process does nothing), cites only that file, and the fix
// resumes it (Start-Service does not).
func TestServicePausedWithoutProcesses(t *testing.T) {
	ev := clEv(map[string]string{"nodes/win-1/services.json": `[{"Name":"kubelet","Status":"Paused","StartType":"Automatic"}]`})
	f := clOne(t, kubeletService(), "win-1", ev, Fail, "kubelet service kubelet is paused", "services.json decides it")
	if f.Fix == nil || f.Fix.ID != "resume-service" || !slices.Equal(f.Evidence, []string{"nodes/win-1/services.json"}) {
		t.Errorf("fix %+v evidence %v", f.Fix, f.Evidence)
	}
	ev = clEv(map[string]string{"nodes/win-1/services.json": `[{"Name":"kubelet","Status":"Stopped","StartType":"Automatic"}]`})
	clOne(t, kubeletService(), "win-1", ev, Fail, "kubelet service kubelet is stopped")
}
