package hostprocess

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Nodes that cannot take this transport are told apart before a pod is made for them,
// from what the Node object already says (status.nodeInfo), so the user learns at once
// what to use instead rather than after a pod that never starts or a shell that is not
// there:
//
//   - a Windows node runs HostProcess containers only with containerd 1.6 or later
//     ("HostProcess containers require containerd 1.6 or higher container runtime",
//     learn.microsoft.com/azure/aks/use-windows-hpc; kubernetes.io create-hostprocess-pod):
//     Docker (dockershim, cri-dockerd) and older containerd cannot;
//   - Bottlerocket and Talos have no shell on the host for the privileged Linux pod to
//     nsenter into: Bottlerocket's host runs only its API and host containers (the
//     admin container gives a shell), Talos is managed through its API with talosctl.

// unfitError is a node this transport cannot serve, and what to use instead.
type unfitError struct {
	why, instead string
}

func (e *unfitError) Error() string { return e.why }

// unfit says why node cannot take the pod this transport would make for it (linux: the
// privileged Linux pod; else the HostProcess pod), or nil when it can, or when the Node
// object does not say.
func unfit(node *corev1.Node, linux bool) *unfitError {
	info := node.Status.NodeInfo
	if linux {
		image := strings.ToLower(info.OSImage)
		switch {
		case strings.Contains(image, "bottlerocket"):
			return &unfitError{fmt.Sprintf("node %s runs %s, which has no host shell for the privileged pod to enter", node.Name, info.OSImage),
				"use Bottlerocket's admin host container (enable it, then `apiclient exec admin bash` or SSH to it, and `sudo sheltie` for the host); the cluster-side probes still run without a node transport"}
		case strings.Contains(image, "talos"):
			return &unfitError{fmt.Sprintf("node %s runs %s, which has no shell or SSH on the host", node.Name, info.OSImage),
				"read the node with talosctl (talosctl -n <node> get routes / addresses / links, talosctl logs kubelet); the cluster-side probes still run without a node transport"}
		}
		return nil
	}
	runtime, version, _ := strings.Cut(info.ContainerRuntimeVersion, "://")
	switch {
	case runtime == "":
		return nil // the kubelet has not reported it yet
	case runtime != "containerd":
		return &unfitError{fmt.Sprintf("node %s runs %s: HostProcess pods need containerd 1.6 or later", node.Name, info.ContainerRuntimeVersion),
			"reach it over WinRM (--transport winrm) or SSH (--transport ssh) instead"}
	case !atLeast(version, 1, 6):
		return &unfitError{fmt.Sprintf("node %s runs %s: HostProcess pods need containerd 1.6 or later", node.Name, info.ContainerRuntimeVersion),
			"upgrade containerd, or reach the node over WinRM (--transport winrm) or SSH (--transport ssh)"}
	}
	return nil
}

// atLeast says whether a version ("1.7.20", "v2.0.2", "1.6.0-rc.1") is major.minor or later;
// one that does not parse counts as later, so an odd string never blocks the node.
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || ma == major && mi >= minor
}

// checkNode reads the Node and refuses one this transport cannot serve. A Node that
// cannot be read (RBAC without nodes get, a name that is an address) is not refused:
// making the pod then says what is wrong.
func (t *Transport) checkNode(ctx context.Context) error {
	node, err := t.run.opts.Client.CoreV1().Nodes().Get(ctx, t.node, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	if u := unfit(node, t.linux); u != nil {
		return t.fail("check node/"+t.node+" can take a "+t.podKind(), u, u.instead)
	}
	return nil
}
