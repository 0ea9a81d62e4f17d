package probes

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Components are not always Windows services or foreground processes. The
// sig-windows-tools kubeadm layout (hostprocess/flannel/kube-proxy/kube-proxy.yml), Calico
// (calico-node-windows, kube-proxy-windows) and Antrea (antrea-agent-windows,
// kube-proxy-windows) run kube-proxy and the CNI agent as HostProcess DaemonSet pods: the
// kubelet restarts them and brings them back after a reboot, and their health is the pod's
// status. Their processes run from the container's sandbox mount, C:\C\<container id>\
// ($env:CONTAINER_SANDBOX_MOUNT_POINT).

// dsPod is a DaemonSet pod on this node that runs a component.
type dsPod struct {
	pod       corev1.Pod
	container string
	ds        string
}

// componentPod finds the pod on this node with a container named like the component
// (kube-proxy). ok is false when pods.json has none, or was not collected.
func (c C) componentPod(comp component) (dsPod, bool) {
	if len(comp.containers) == 0 {
		return dsPod{}, false
	}
	pods, ok := optional(c, evidence.Pods)
	if !ok {
		return dsPod{}, false
	}
	for _, p := range podsBound(c.ev, pods, c.node) {
		for _, ctr := range p.Spec.Containers {
			for _, want := range comp.containers {
				if strings.EqualFold(ctr.Name, want) {
					return dsPod{pod: p, container: ctr.Name, ds: ownerDaemonSet(p)}, true
				}
			}
		}
	}
	return dsPod{}, false
}

// hostProcess says whether the pod runs as a HostProcess container.
func (d dsPod) hostProcess() bool {
	sc := d.pod.Spec.SecurityContext
	return sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess
}

func (d dsPod) name() string { return d.pod.Namespace + "/" + d.pod.Name }

func (d dsPod) owner() string {
	if d.ds == "" {
		return "pod " + d.name()
	}
	return fmt.Sprintf("pod %s of DaemonSet %s", d.name(), d.ds)
}

// running says whether the component's container runs and is ready; why says otherwise.
func (d dsPod) running() (ok bool, why string) {
	for _, cs := range d.pod.Status.ContainerStatuses {
		if cs.Name != d.container {
			continue
		}
		switch {
		case cs.State.Running != nil && cs.Ready:
			return true, ""
		case cs.State.Waiting != nil:
			why = fmt.Sprintf("container %s waiting: %s %s", cs.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message)
		case cs.State.Terminated != nil:
			why = fmt.Sprintf("container %s terminated: %s (exit %d)", cs.Name, cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
		default:
			why = fmt.Sprintf("container %s running but not ready", cs.Name)
		}
		if cs.RestartCount > 0 {
			why += fmt.Sprintf(", %d restarts", cs.RestartCount)
		}
		return false, strings.TrimSpace(why)
	}
	return false, fmt.Sprintf("pod phase %s, no status for container %s", d.pod.Status.Phase, d.container)
}

// podFix is what to do about a component pod that does not run: read why, then let the
// DaemonSet recreate it.
func podFix(verify string, d dsPod) *Fix {
	ns, name := d.pod.Namespace, d.pod.Name
	return &Fix{
		ID: "restart-component-pod", Title: "Read why " + d.name() + " does not run, then recreate it", Kind: Manual, Verify: verify,
		Commands: []string{
			"kubectl -n " + ns + " describe pod " + name,
			"kubectl -n " + ns + " logs " + name + " -c " + d.container + " --previous",
			"kubectl -n " + ns + " delete pod " + name + "   # the DaemonSet recreates it",
		},
		Notes: []string{"HostProcess pods' logs are also on the node under C:\\var\\log\\pods\\" + ns + "_" + name + "_*\\" + d.container + "\\"},
	}
}

// sandboxed says whether a process runs from a HostProcess container's sandbox mount
// (C:\C\<64 hex>\...), so it belongs to a pod, not to a service or a start script.
func sandboxed(p decode.Process) bool {
	cmd := strings.TrimLeft(string(p.CommandLine), `"`)
	if len(cmd) < 6 || !strings.EqualFold(cmd[:5], `C:\C\`) {
		return false
	}
	id, _, ok := strings.Cut(cmd[5:], `\`)
	return ok && len(id) == 64 && strings.Trim(strings.ToLower(id), "0123456789abcdef") == ""
}

// podJudgement judges a component that has no service: by its DaemonSet pod when one is
// on this node, or as a HostProcess container's process when pods.json cannot say which
// pod. ok is false when neither applies (a foreground process, or nothing at all).
func (c C) podJudgement(id string, comp component, st state) (Finding, bool) {
	if d, ok := c.componentPod(comp); ok {
		kind := "pod"
		if d.hostProcess() {
			kind = "HostProcess pod"
		}
		up, why := d.running()
		if up {
			f := c.Pass(fmt.Sprintf("%s runs as %s %s; the kubelet supervises it", comp.label, kind, d.name()), evidence.PathPods).
				With(d.owner() + ": the kubelet restarts it when it exits and after a reboot, so it needs no Windows service")
			if st.hasProc {
				f = f.With(fmt.Sprintf("its process %s (pid %d) runs on the host", st.proc.Name, st.proc.ProcessId))
			}
			return f, true
		}
		f := c.Fail(fmt.Sprintf("%s %s (%s) is not running: %s", comp.label, kind, d.name(), why), evidence.PathPods).
			With(d.owner(), "a Windows service would not help: the DaemonSet pod is what runs it here").
			WithFix(podFix(id, d))
		return f, true
	}
	if st.hasProc && sandboxed(st.proc) {
		return c.Pass(fmt.Sprintf("%s runs from a HostProcess container (pid %d): a pod, supervised by the kubelet", comp.label, st.proc.ProcessId)).
			With("its executable is under a container sandbox mount (C:\\C\\<id>\\), so it belongs to a DaemonSet pod, not to a service or a start script",
				"the evidence has no pod for it (cluster/pods.json missing or partial): check kubectl get pods -A -o wide --field-selector spec.nodeName="+c.node), true
	}
	return Finding{}, false
}
