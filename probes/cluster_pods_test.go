package probes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

func TestNodeTaint(t *testing.T) {
	untainted := func(n *corev1.Node) { n.Spec.Taints = nil }
	kubeProxy := clPod("kube-system", "kube-proxy-x7", "win-1", "registry.k8s.io/kube-proxy:v1.30.0", func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "kube-proxy", Controller: ptr.To(true)}}
		p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	})
	windowsPod := func(name string, tol ...corev1.Toleration) corev1.Pod {
		return clPod("default", name, "", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
			p.Spec.Tolerations = tol
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/3 nodes are available: 1 node(s) had untolerated taint {os: windows}, 2 node(s) didn't match Pod's node affinity/selector."}}
		})
	}
	for _, tc := range []struct {
		name   string
		nodes  []corev1.Node
		pods   []corev1.Pod
		events []corev1.Event
		status Status
		want   []string
		fix    string
	}{
		{"tainted, tolerating Windows pods", []corev1.Node{clWinNode("win-1")},
			[]corev1.Pod{clPod("default", "iis", "win-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019")},
			nil, Pass, []string{"tainted os=windows:NoSchedule"}, ""},
		{"no taint, no Linux pods", []corev1.Node{clWinNode("win-1", untainted)}, nil, nil,
			Warn, []string{"no os=windows:NoSchedule taint", "actual: taints none"}, "taint-windows"},
		{"no taint, Linux pods landed", []corev1.Node{clWinNode("win-1", untainted)},
			[]corev1.Pod{kubeProxy, clPod("default", "web", "win-1", "nginx:1.27"), clPod("default", "sel", "win-1", "example.com/app:1", func(p *corev1.Pod) {
				p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
			})},
			nil, Fail, []string{"Linux pods landed here: kube-system/kube-proxy-x7, default/web, default/sel",
				"image nginx:1.27 has no Windows variant", "nodeSelector kubernetes.io/os=linux"}, "taint-windows"},
		{"tainted, yet a tolerate-all DaemonSet runs", []corev1.Node{clWinNode("win-1")}, []corev1.Pod{kubeProxy}, nil,
			Fail, []string{"Linux pods run here despite the taint os=windows:NoSchedule: kube-system/kube-proxy-x7", "operator: Exists"}, "linux-nodeselector"},
		{"Windows pod Pending on the taint", []corev1.Node{clWinNode("win-1")},
			[]corev1.Pod{windowsPod("no-toleration"), windowsPod("tolerates", corev1.Toleration{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule})},
			nil, Fail, []string{"Windows pods Pending: they do not tolerate os=windows:NoSchedule: default/no-toleration", "untolerated taint {os: windows}"}, "add-toleration"},
		{"Pending pod seen only in a FailedScheduling event", []corev1.Node{clWinNode("win-1", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "node.kubernetes.io/os", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}}
		})},
			[]corev1.Pod{clPod("default", "old", "", "example.com/win:ltsc2019", func(p *corev1.Pod) {
				p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
			})},
			[]corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "old"}, Reason: "FailedScheduling",
				Message: "0/2 nodes are available: 1 node(s) had taint {node.kubernetes.io/os: Windows}, that the pod didn't tolerate."}},
			Fail, []string{"default/old", "event FailedScheduling"}, "add-toleration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := clEv(map[string]string{
				evidence.PathNodes:  string(clList(t, toAny(tc.nodes)...)),
				evidence.PathPods:   string(clList(t, toAny(tc.pods)...)),
				evidence.PathEvents: string(clList(t, toAny(tc.events)...)),
			})
			f := clOne(t, nodeTaint{}, "win-1", ev, tc.status, tc.want...)
			if got := fixID(f); got != tc.fix {
				t.Errorf("fix %q, want %q", got, tc.fix)
			}
			if tc.fix == "taint-windows" && (f.Fix.Kind != KubeAPI || f.Fix.Action != "taint" || f.Fix.Commands[0] != "kubectl taint nodes win-1 os=windows:NoSchedule") {
				t.Errorf("taint fix = %+v", f.Fix)
			}
		})
	}
	t.Run("the taint key other Windows nodes use", func(t *testing.T) {
		other := clWinNode("win-2", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "node.kubernetes.io/os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		})
		ev := clEv(map[string]string{
			evidence.PathNodes: string(clList(t, clWinNode("win-1", untainted), other)),
			evidence.PathPods:  string(clList(t)),
		})
		f := clOne(t, nodeTaint{}, "win-1", ev, Warn)
		if f.Fix == nil || f.Fix.Params["key"] != "node.kubernetes.io/os" {
			t.Errorf("fix = %+v", f.Fix)
		}
	})
	t.Run("events denied by RBAC", func(t *testing.T) {
		ev := clEv(map[string]string{
			evidence.PathNodes:                       string(clList(t, clWinNode("win-1"))),
			evidence.PathPods:                        string(clList(t)),
			evidence.PathEvents + evidence.ErrSuffix: "forbidden: cannot list events at cluster scope\n",
		})
		clOne(t, nodeTaint{}, "win-1", ev, Pass, "cluster/events.json not collected: forbidden")
	})
}

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i := range xs {
		out[i] = xs[i]
	}
	return out
}

func fixID(f Finding) string {
	if f.Fix == nil {
		return ""
	}
	return f.Fix.ID
}

func TestPodImageBuild(t *testing.T) {
	waiting := func(msg string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerError", Message: msg}}}}
		}
	}
	runningPod := func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	}
	for _, tc := range []struct {
		name   string
		node   corev1.Node
		pods   []corev1.Pod
		events []corev1.Event
		status Status
		want   []string
	}{
		{"matching tags", clWinNode("win-1"), []corev1.Pod{
			clPod("default", "iis", "win-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"),
			clPod("default", "app", "win-1", "example.com/app:v1.2.3"),
			clPod("default", "pinned", "win-1", "mcr.microsoft.com/windows/nanoserver:10.0.17763.5820"),
		}, nil, Pass, []string{"3 pod(s)", "expected: images built for 10.0.17763 (ltsc2019 (1809))"}},
		{"ltsc2022 image on a 1809 host", clWinNode("win-1"), []corev1.Pod{
			clPod("default", "iis", "win-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", waiting("")),
		}, nil, Fail, []string{"ltsc2022 image on a ltsc2019 (1809) host: default/iis", "names build 10.0.20348; the node is 10.0.17763"}},
		{"the runtime's OS-mismatch error", clWinNode("win-1", func(n *corev1.Node) { delete(n.Labels, "node.kubernetes.io/windows-build") }), []corev1.Pod{
			clPod("default", "legacy", "win-1", "example.com/legacy:latest",
				waiting("hcs::CreateComputeSystem: The container operating system does not match the host operating system. (0xc0370101)")),
		}, nil, Fail, []string{"default/legacy fails", "(0xc0370101)", "the node's 10.0.17763.1879"}},
		{"no matching manifest, from an event", clWinNode("win-1"), []corev1.Pod{
			clPod("default", "linuxy", "win-1", "example.com/tool:1.0", waiting("")),
		}, []corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "linuxy", UID: "uid-linuxy"}, Reason: "Failed",
			Message: `Failed to pull image "example.com/tool:1.0": no matching manifest for windows/amd64 10.0.17763 in the manifest list entries`}},
			Fail, []string{"default/linuxy fails", "no matching manifest for windows/amd64 10.0.17763"}},
		{"the sandbox hit it: the pause image's fault", clWinNode("win-1"), []corev1.Pod{
			clPod("default", "iis", "win-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", waiting("")),
		}, []corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "iis"}, Reason: "FailedCreatePodSandBox",
			Message: "Failed to create pod sandbox: hcsshim::CreateComputeSystem: The container operating system does not match the host operating system."}},
			Fail, []string{"default/iis fails: its sandbox (pause) image is built for another Windows build", "IMG-PAUSE-BUILD"}},
		{"another build that runs anyway", clWinNode("win-1"), []corev1.Pod{
			clPod("default", "hv", "win-1", "mcr.microsoft.com/windows/nanoserver:ltsc2022", runningPod),
		}, nil, Warn, []string{"yet it runs", "Hyper-V isolation"}},
		{"ltsc2022 host runs ltsc2019 images? no", clWinNode("win-1", func(n *corev1.Node) {
			n.Labels["node.kubernetes.io/windows-build"] = "10.0.20348"
		}), []corev1.Pod{
			clPod("default", "iis", "win-1", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", waiting("")),
		}, nil, Fail, []string{"ltsc2019 (1809) image on a ltsc2022 host"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := clEv(map[string]string{
				evidence.PathNodes:  string(clList(t, tc.node)),
				evidence.PathPods:   string(clList(t, toAny(tc.pods)...)),
				evidence.PathEvents: string(clList(t, toAny(tc.events)...)),
			})
			f := clOne(t, podImageBuild{}, "win-1", ev, tc.status, tc.want...)
			if (tc.status >= Warn) != (f.Fix != nil) {
				t.Errorf("fix = %+v", f.Fix)
			}
		})
	}
	t.Run("no pods", func(t *testing.T) {
		ev := clEv(map[string]string{evidence.PathNodes: string(clList(t, clWinNode("win-1"))), evidence.PathPods: string(clList(t))})
		clOne(t, podImageBuild{}, "win-1", ev, Skip, "no pods on this node")
	})
}

func TestTagBuild(t *testing.T) {
	for img, want := range map[string]uint16{
		"mcr.microsoft.com/windows/servercore:ltsc2019":                   17763,
		"mcr.microsoft.com/windows/nanoserver:10.0.20348.2227":            20348,
		"mcr.microsoft.com/oss/kubernetes/pause:3.6-windows-1809-amd64":   17763,
		"example.com/app:20H2":                                            19042,
		"localhost:5000/app:ltsc2025@sha256:0123":                         26100,
		"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore": 0,
		"localhost:5000/app":                                              0,
		"example.com/app:v1.18.09":                                        0,
	} {
		got, ok := tagBuild(img)
		if got != want || ok != (want != 0) {
			t.Errorf("tagBuild(%s) = %d %v, want %d", img, got, ok, want)
		}
	}
}
