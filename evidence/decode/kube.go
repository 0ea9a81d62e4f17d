package decode

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// Nodes reads cluster/nodes.json: `kubectl get nodes -o json` (a List), or a single Node
// as `kubectl get node NAME -o json` prints it.
func Nodes(file string, b []byte) ([]corev1.Node, error) {
	return kubeList[corev1.Node](file, b, "Node")
}

// Services reads cluster/services.json.
func Services(file string, b []byte) ([]corev1.Service, error) {
	return kubeList[corev1.Service](file, b, "Service")
}

// Pods reads cluster/pods.json.
func Pods(file string, b []byte) ([]corev1.Pod, error) { return kubeList[corev1.Pod](file, b, "Pod") }

// Events reads cluster/events.json.
func Events(file string, b []byte) ([]corev1.Event, error) {
	return kubeList[corev1.Event](file, b, "Event")
}

// DaemonSets reads cluster/daemonsets.json.
func DaemonSets(file string, b []byte) ([]appsv1.DaemonSet, error) {
	return kubeList[appsv1.DaemonSet](file, b, "DaemonSet")
}

type kubeDoc struct {
	Kind  string            `json:"kind"`
	Items []json.RawMessage `json:"items"`
}

func kubeList[T any](file string, b []byte, kind string) ([]T, error) {
	t, err := Text(file, b)
	if err != nil {
		return nil, err
	}
	var doc kubeDoc
	if err := json.Unmarshal(t, &doc); err != nil {
		return nil, fail(file, err, "not kubectl JSON output: %v%s", describeJSONErr(err), paste.Hint(t))
	}
	raws := doc.Items
	switch doc.Kind {
	case kind:
		raws = []json.RawMessage{json.RawMessage(t)}
	case kind + "List", "List":
	default:
		return nil, fail(file, nil, "kind %q, expected %sList or List (from kubectl get ... -o json)", doc.Kind, kind)
	}
	out := make([]T, 0, len(raws))
	for i, r := range raws {
		var v T
		if err := json.Unmarshal(r, &v); err != nil {
			return nil, fail(file, err, "item %d: %v", i+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// KubeletConfig holds the KubeletConfiguration fields the probes read.
type KubeletConfig struct {
	ClusterDNS             []string `json:"clusterDNS"`
	ClusterDomain          string   `json:"clusterDomain"`
	PodCIDR                string   `json:"podCIDR"`
	ResolvConf             *string  `json:"resolvConf"`
	PodInfraContainerImage string   `json:"podInfraContainerImage"`
}

// DecodeKubeletConfig reads kubelet-config.json (YAML or JSON, as kubelet accepts).
func DecodeKubeletConfig(file string, b []byte) (KubeletConfig, error) {
	var c KubeletConfig
	t, err := Text(file, b)
	if err != nil {
		return c, err
	}
	if err := yaml.Unmarshal(t, &c); err != nil {
		return c, fail(file, err, "not a KubeletConfiguration: %v", err)
	}
	return c, nil
}

// NodeAddress returns the node's address of a type (InternalIP, Hostname).
func NodeAddress(n corev1.Node, typ corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return ""
}

// IsWindows says whether a Node runs Windows, by label or by nodeInfo.
func IsWindows(n corev1.Node) bool {
	if os, ok := n.Labels["kubernetes.io/os"]; ok {
		return os == "windows"
	}
	return n.Status.NodeInfo.OperatingSystem == "windows"
}

// FindNode looks a node up by name.
func FindNode(ns []corev1.Node, name string) (corev1.Node, error) {
	for _, n := range ns {
		if n.Name == name {
			return n, nil
		}
	}
	return corev1.Node{}, fmt.Errorf("node %q is not in the cluster's node list", name)
}

// PastedUnknown is the annotation an import puts on a Node it read from a console table
// (kubectl get nodes): the fields the table does not show, comma-separated. kubectl's
// JSON leaves empty fields out, so only this says "not shown" rather than "empty".
const PastedUnknown = "wintroubleshoot.io/pasted-unknown"

// UnknownFields lists the fields of a Node the evidence did not show; nil for a Node
// from kubectl's JSON.
func UnknownFields(n corev1.Node) []string {
	v, ok := n.Annotations[PastedUnknown]
	if !ok || v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
