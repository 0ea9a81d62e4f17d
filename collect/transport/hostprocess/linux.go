package hostprocess

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// A Linux worker is reached the same way, through a privileged pod instead of a
// HostProcess one: it shares the host's PID, network and IPC namespaces, and each command
// runs through nsenter into PID 1's mount, UTS, IPC, network and PID namespaces, so the
// shell sweep sees the host as an SSH login as root would. This is what kubectl-node-shell
// does for a Linux node (github.com/kvaps/kubectl-node-shell, kubectl-node_shell:
// privileged securityContext, hostPID/hostNetwork/hostIPC, spec.nodeName, tolerations
// operator Exists, command "nsenter --target 1 --mount --uts --ipc --net --pid --").

// DefaultLinuxImage is the privileged pod's image: busybox has nsenter, sh and sleep as
// applets in a few MB, and is mirrored by every registry proxy.
const DefaultLinuxImage = "busybox:1.36"

// NsenterArgs is the argv prefix every command in a Linux pod runs behind: into the
// namespaces of the host's PID 1 (kubectl-node-shell's cmd_start, in short options).
func NsenterArgs() []string {
	return []string{"nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--"}
}

// IsLinuxCommandLine says whether a command line is the Linux sweep's or fix's (sh reading
// its script from stdin, as scripts.LinuxCommandLine writes it): the first such command
// makes a transport's pod the privileged Linux one.
func IsLinuxCommandLine(line string) bool {
	switch strings.Join(strings.Fields(line), " ") {
	case "sh -s", "sudo -n sh -s":
		return true
	}
	return false
}

// linuxArgs is the argv of a command line in the Linux pod. The pod runs as root, so sudo
// is dropped; `sh -s` runs as is behind nsenter, reading the script from stdin; any other
// line goes to `sh -c`, as sshd hands a command line to the login shell, so a PowerShell
// line fails with the shell's "not found" as it does over SSH.
func linuxArgs(line string) ([]string, error) {
	if strings.TrimSpace(line) == "" {
		return nil, fmt.Errorf("empty command line")
	}
	if IsLinuxCommandLine(line) {
		return append(NsenterArgs(), "sh", "-s"), nil
	}
	return append(NsenterArgs(), "sh", "-c", line), nil
}

// linuxPodSpec is the privileged pod for one Linux node: the Windows pod's binding,
// labels, deadline and tolerations, with the Linux host namespaces instead of HostProcess.
func (r *Run) linuxPodSpec(node string, expires time.Time) *corev1.Pod {
	p := r.podSpec(node, expires)
	deadline := *p.Spec.ActiveDeadlineSeconds
	p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	p.Spec.HostPID, p.Spec.HostIPC = true, true
	p.Spec.SecurityContext = nil
	p.Spec.Containers = []corev1.Container{{
		Name:            containerName,
		Image:           r.opts.LinuxImage,
		Command:         []string{"sleep", fmt.Sprint(deadline)},
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
	}}
	return p
}

// podKind names the transport's pod in messages.
func (t *Transport) podKind() string {
	if t.linux {
		return "privileged pod"
	}
	return "HostProcess pod"
}

// Linux says whether the transport's pod is (or will be) the privileged Linux one; it is
// fixed by the first command.
func (t *Transport) Linux() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.linux
}

// args fixes the pod's kind on the first command and splits the line for it.
func (t *Transport) args(line string) ([]string, error) {
	t.mu.Lock()
	if !t.decided {
		t.linux, t.decided = IsLinuxCommandLine(line), true
	}
	linux := t.linux
	t.mu.Unlock()
	if linux {
		return linuxArgs(line)
	}
	return commandArgs(line)
}

// imageFlag is the flag that changes the pod's image, for hints.
func (t *Transport) imageFlag() string {
	if t.linux {
		return "--linux-pod-image"
	}
	return "--hostprocess-image"
}
