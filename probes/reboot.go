package probes

import (
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// reboot (SVC-REBOOT) finds components that will not, or did not, come back after
// a reboot: services not set to start automatically, or components that only ever ran as
// foreground processes (the SDN start scripts), which nothing restarts.
type reboot struct{}

func (reboot) Spec() Spec {
	return Spec{ID: "SVC-REBOOT", Layouts: layoutsExcept(LayoutRKE2), Title: "components survive a reboot", FM: []string{"FM-08"},
		Reads: []evidence.Ref{evidence.WindowsServices, evidence.Processes, evidence.Host, evidence.ClusterNodes, evidence.Pods, evidence.CNIConfig}}
}

func (reboot) Check(c C) Finding {
	svcs, svcPath, bad := need(c, evidence.WindowsServices)
	if bad != nil {
		return *bad
	}
	procs, procPath, bad := need(c, evidence.Processes)
	if bad != nil {
		return *bad
	}
	var stopped, foreground, byPod, byRKE2, unknown []string
	var details []string
	cites := []string{svcPath, procPath}
	rke2Why, rke2 := c.onRKE2(procs)
	for _, comp := range []component{kubeletComponent(), kubeProxyComponent(), runtimeComponent()} {
		st := comp.state(svcs, procs)
		if !st.hasSvc && rke2 {
			// rke2 starts them at boot and restarts them (supervisor_layouts.go).
			byRKE2 = append(byRKE2, comp.label)
			continue
		}
		if !st.hasSvc && !st.hasProc && comp.label == kubeProxyComponent().label {
			if d, ok := c.antreaProxies(); ok {
				what := "antrea-agent does its work (AntreaProxy), restarted by the kubelet after a reboot"
				if d.pod.Name != "" {
					what = "antrea-agent (" + d.owner() + ") does its work (AntreaProxy), restarted by the kubelet after a reboot"
					cites = append(cites, evidence.PathPods)
				}
				byPod = append(byPod, "kube-proxy: none on this Antrea node; "+what)
				continue
			}
		}
		if !st.hasSvc {
			// A DaemonSet pod (sig-windows-tools kubeadm, Calico, Antrea: HostProcess kube-proxy)
			// comes back with the kubelet; its running state is SVC-KUBEPROXY's to judge.
			if d, ok := c.componentPod(comp); ok {
				byPod = append(byPod, fmt.Sprintf("%s: %s, restarted by the kubelet after a reboot", comp.label, d.owner()))
				cites = append(cites, evidence.PathPods)
				continue
			}
			if st.hasProc && sandboxed(st.proc) {
				byPod = append(byPod, fmt.Sprintf("%s: a HostProcess container's process (pid %d), restarted by the kubelet after a reboot", comp.label, st.proc.ProcessId))
				continue
			}
		}
		switch {
		case st.hasSvc && st.svc.StartType == "":
			// A pasted table without StartType: whether it comes back is not known.
			unknown = append(unknown, st.svc.Name)
		case st.hasSvc && st.svc.Status != "Running" && st.svc.StartType != "Automatic":
			stopped = append(stopped, st.svc.Name)
			details = append(details, fmt.Sprintf("%s: %s, StartType %s", st.svc.Name, st.svc.Status, st.svc.StartType))
		case !st.hasSvc && comp.label != "container runtime":
			// a foreground process, or nothing at all: either way no service brings it back
			foreground = append(foreground, comp.label)
		}
	}
	if (len(stopped) > 0 || len(foreground) > 0) && c.layoutUnknown() {
		// AKS starts Manual services itself, rke2 runs them: a pasted node table hides both.
		return c.Skip("whether the components come back after a reboot depends on the layout, and the node came from a pasted table (no providerID, labels)", cites...).
			With(details...).With("re-collect with: kubectl get node " + c.node + " -o json")
	}
	if len(stopped) > 0 {
		return c.stoppedAtReboot(svcs, stopped, details, cites)
	}
	if len(foreground) > 0 {
		return c.foregroundAtReboot(foreground, cites)
	}
	if len(unknown) > 0 {
		return c.Skip(fmt.Sprintf("the start type of %s is not in the evidence (a pasted table without the StartType column)", strings.Join(unknown, ", ")), cites...).
			With("re-collect with: Get-Service " + strings.Join(unknown, ", ") + " | Select-Object Name, Status, StartType")
	}
	if len(byRKE2) > 0 {
		return c.Skip(fmt.Sprintf("%s run under the rke2 service, which the sweep does not list: whether they come back after a reboot is rke2's start type", strings.Join(byRKE2, ", ")), cites...).
			With(rke2Why, rke2Check)
	}
	if len(byPod) > 0 {
		return c.Pass("the kubelet and the runtime are services that start automatically; the rest run as DaemonSet pods", cites...).With(byPod...)
	}
	return c.Pass("kubelet, kube-proxy and the runtime are services that start automatically", cites...)
}

// rebootStory says, when the evidence shows it, that the node rebooted after the kubelet
// last reported: boot time later than the Ready condition's last heartbeat.
func (c C) rebootStory() string {
	host, ok := optional(c, evidence.Host)
	if !ok {
		return ""
	}
	boot, ok := host.BootTime()
	if !ok {
		return ""
	}
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return ""
	}
	for _, cond := range self.Status.Conditions {
		if cond.Type != corev1.NodeReady {
			continue
		}
		hb := cond.LastHeartbeatTime.Time
		if !hb.IsZero() && boot.After(hb) {
			return fmt.Sprintf("the host booted at %s, after the kubelet's last heartbeat at %s (Ready=%s: %s)",
				boot.UTC().Format(time.RFC3339), hb.UTC().Format(time.RFC3339), cond.Status, cond.Message)
		}
	}
	return ""
}

// stoppedAtReboot is the failure of services stopped and not set to start automatically,
// with the fix that fits the layout (AKS starts its Manual services itself).
func (c C) stoppedAtReboot(svcs []decode.Service, stopped, details, cites []string) Finding {
	f := c.Fail(fmt.Sprintf("%s stopped and not set to start automatically: the node does not recover from a reboot",
		strings.Join(stopped, ", "))).With(details...)
	if reboot := c.rebootStory(); reboot != "" {
		f = f.With(reboot)
		cites = append(cites, c.Path(evidence.Host), evidence.PathNodes)
	}
	if c.onAKS(svcs) {
		// AKS services are Manual by design; starting them is the fix, not the start type.
		start := startFix(c.id, stopped)
		f = f.With(aksStartedBy).WithFix(start)
		return f.Citing(cites...)
	}
	auto := autostartFix(c.id, stopped)
	f.Fix = &Fix{ID: "reboot-recovery", Title: "Bring the components back (choose one)", Kind: auto.Kind, Action: auto.Action,
		Params: auto.Params, Commands: auto.Commands, Verify: c.id,
		Choices: []*Fix{auto, deleteNodeFix(c.node)}}
	return f.Citing(cites...)
}

// foregroundAtReboot warns of components run in the foreground (the SDN start.ps1): no
// service brings them back.
func (c C) foregroundAtReboot(foreground, cites []string) Finding {
	f := c.Warn(fmt.Sprintf("%s not registered as services: nothing restarts them after a reboot",
		strings.Join(foreground, " and ")), cites...).With("the SDN start.ps1 runs kubelet and kube-proxy in PowerShell windows; a reboot leaves the node NotReady")
	f.Fix = &Fix{ID: "register-services", Title: "Register kubelet and kube-proxy as services", Kind: Manual, Verify: c.id,
		Commands: []string{
			"C:\\k\\register-svc.ps1   # microsoft/SDN Kubernetes/flannel: registers kubelet, kube-proxy, flanneld with nssm",
			"Get-Service kubelet, kube-proxy | Set-Service -StartupType Automatic",
		}}
	return f
}
