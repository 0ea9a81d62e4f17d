package probes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Helpers for the cluster_* probe tests; prefixed cl so they never collide with other
// tests of this package.

// clList renders API objects as a kubectl List.
func clList(t *testing.T, items ...any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clEv builds in-memory evidence from path -> content.
func clEv(files map[string]string) evidence.Evidence {
	tr := evidence.NewTree()
	for p, b := range files {
		tr.Put(p, []byte(b))
	}
	return tr.Evidence()
}

// clWinNode is a healthy, tainted Windows Server 2019 node; mods adjust it.
func clWinNode(name string, mods ...func(*corev1.Node)) corev1.Node {
	n := corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.200.2.0/24",
			Taints: []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.0.22"}},
			NodeInfo:  corev1.NodeSystemInfo{OperatingSystem: "windows", KernelVersion: "10.0.17763.1879"},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastTransitionTime: metav1.NewTime(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))}},
		},
	}
	for _, m := range mods {
		m(&n)
	}
	return n
}

// clLinuxNode is a Linux peer with its own podCIDR.
func clLinuxNode(name, ip, podCIDR string) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": "linux"}},
		Spec:       corev1.NodeSpec{PodCIDR: podCIDR},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
	}
}

// clPod is a pod on node (or Pending when node is "") with one container.
func clPod(ns, name, node, image string, mods ...func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "main", Image: image}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if node == "" {
		p.Status.Phase = corev1.PodPending
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

func clService(ns, name, ip string) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip}}
}

// clOne runs a probe and expects exactly one finding with the given status, whose summary
// and details together mention every want.
func clOne(t *testing.T, c Checker, node string, ev evidence.Evidence, status Status, want ...string) Finding {
	t.Helper()
	reg, err := NewRegistry(c)
	if err != nil {
		t.Fatal(err)
	}
	p := reg.Probes()[0]
	fs := RunProbe(p, node, ev)
	if len(fs) != 1 {
		t.Fatalf("%s: %d findings, want 1: %+v", p.ID(), len(fs), fs)
	}
	f := fs[0]
	text := f.Summary + "\n" + strings.Join(f.Details, "\n")
	if f.Status != status {
		t.Errorf("%s on %s: status %s, want %s\n%s", p.ID(), node, f.Status, status, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s on %s: finding lacks %q:\n%s", p.ID(), node, w, text)
		}
	}
	if f.Probe != p.ID() || len(f.Evidence) == 0 {
		t.Errorf("%s: probe %q, evidence %v", p.ID(), f.Probe, f.Evidence)
	}
	if f.Status >= Warn && f.Status != Error && f.Fix != nil && f.Fix.Verify != p.ID() {
		t.Errorf("%s: fix %s verifies %q", p.ID(), f.Fix.ID, f.Fix.Verify)
	}
	return f
}
