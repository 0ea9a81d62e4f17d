package probes

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// TestClusterProbesLive runs the cluster probes on evidence collected from a real
// kube-apiserver (objects created through the API, Collect writing cluster/*.json) plus
// hand-written node files in the same tree: one healthy Windows node and one with every
// problem these probes know.
func TestClusterProbesLive(t *testing.T) {
	c := kubeapi.Start(t)
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	const good, bad = "win-1", "win-worker-node-02"
	liveSeed(t, cs, good, bad)
	kc := c.Kubeconfig
	client, err := kube.New(&genericclioptions.ConfigFlags{KubeConfig: &kc})
	if err != nil {
		t.Fatal(err)
	}
	tree := evidence.NewTree()
	collect := func(t *testing.T) evidence.Evidence {
		t.Helper()
		d, err := client.Collect(t.Context(), tree)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Windows) != 2 || d.KubeDNS != "10.32.0.10" || d.ClusterCIDR != "10.200.0.0/16" {
			t.Fatalf("discovery = %+v", d)
		}
		return tree.Evidence()
	}
	tree.PutAll("nodes/"+good, map[string][]byte{
		evidence.FileHost:        []byte(clHost("WIN-1", true)),
		evidence.FileIPAddresses: []byte(`[{"IPAddress":"10.240.0.22","PrefixLength":24,"InterfaceAlias":"vEthernet (Ethernet)"},{"IPAddress":"172.20.16.1","PrefixLength":20,"InterfaceAlias":"vEthernet (nat)"}]`),
		evidence.FileProcesses:   []byte(clKubeletProc("10.32.0.10")),
		evidence.FileCNIConfig:   []byte(clCNI("10.32.0.10", `"10.200.0.0/16","10.32.0.0/24","10.240.0.0/24"`)),
	})
	tree.PutAll("nodes/"+bad, map[string][]byte{
		evidence.FileHost:        []byte(clHost("WIN-WORKER-NODE", true)),
		evidence.FileIPAddresses: []byte(`[{"IPAddress":"10.240.0.23","PrefixLength":24,"InterfaceAlias":"vEthernet (Ethernet)"},{"IPAddress":"172.20.16.1","PrefixLength":20,"InterfaceAlias":"vEthernet (nat)"}]`),
		evidence.FileProcesses:   []byte(clKubeletProc("11.0.0.10")),
		evidence.FileCNIConfig:   []byte(clCNI("11.0.0.10", `"10.200.0.0/16","11.0.0.0/8","10.240.0.0/24"`)),
	})
	ev := collect(t)

	probes := []Checker{nodeReady{}, dnsConfig{}, nodeTaint{}, podImageBuild{}, hostName{}, nodeIP{}}
	for _, p := range probes {
		clOne(t, p, good, ev, Pass)
	}
	want := map[string][]string{
		"NODE-READY":      {"Ready=Unknown (NodeStatusUnknown)", "KubeletUnhealthy=True"},
		"DNS-CONFIG":      {"kubelet cluster DNS 11.0.0.10 is not kube-dns 10.32.0.10", "ExceptionList holds 11.0.0.0/8, the SDN default"},
		"NODE-TAINT":      {"no Windows taint, and Linux pods landed here: kube-system/kube-proxy-w2"},
		"POD-IMAGE-BUILD": {"ltsc2022 image on a ltsc2019 (1809) host: default/web", "does not match the host operating system"},
		"HOST-NAME":       {"AD knows it as WIN-WORKER-NODE"},
		"NODE-IP":         {`InternalIP 172.20.16.1 is on "vEthernet (nat)"`, "the right-looking address is 10.240.0.23"},
	}
	for _, p := range probes {
		clOne(t, p, bad, ev, Fail, want[p.Spec().ID]...)
		if f := clOne(t, podCIDR{}, bad, ev, Pass); strings.Contains(f.Summary, "outside") {
			t.Errorf("podCIDR judged outside the cluster CIDR: %+v", f)
		}
	}

	t.Run("a Windows pod Pending on the taint", func(t *testing.T) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "win-pending", Namespace: "default"},
			Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
				Containers: []corev1.Container{{Name: "main", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2019"}}}}
		p, err := cs.CoreV1().Pods("default").Create(t.Context(), p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/3 nodes are available: 1 node(s) had untolerated taint {os: windows}, 2 node(s) didn't match Pod's node affinity/selector."}}
		if _, err := cs.CoreV1().Pods("default").UpdateStatus(t.Context(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		clOne(t, nodeTaint{}, good, collect(t), Fail, "Windows pods Pending: they do not tolerate os=windows:NoSchedule: default/win-pending")
	})

	t.Run("the taint fix, applied through the API, then re-judged", func(t *testing.T) {
		f := clOne(t, nodeTaint{}, bad, collect(t), Fail)
		pr := f.Fix.Params
		if err := client.Taint(t.Context(), f.Node, pr["key"].(string), pr["value"].(string), pr["effect"].(string)); err != nil {
			t.Fatal(err)
		}
		// Tainted now, but the DaemonSet pod tolerates everything: still there, still wrong.
		f = clOne(t, nodeTaint{}, bad, collect(t), Fail, "Linux pods run here despite the taint os=windows:NoSchedule")
		if f.Fix == nil || !strings.HasPrefix(f.Fix.Commands[0], "kubectl -n kube-system patch daemonset kube-proxy --type merge") {
			t.Errorf("fix = %+v", f.Fix)
		}
	})
}

// liveSeed creates the cluster: a Linux peer, a healthy Windows node, a broken one and
// the objects around them.
func liveSeed(t *testing.T, cs kubernetes.Interface, good, bad string) {
	t.Helper()
	ctx := t.Context()
	now := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	mk := func(n corev1.Node) {
		status := n.Status
		n.ResourceVersion = ""
		out, err := cs.CoreV1().Nodes().Create(ctx, &n, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create node %s: %v", n.Name, err)
		}
		out.Status = status
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("node %s status: %v", n.Name, err)
		}
	}
	mk(clLinuxNode("node-0", "10.240.0.20", "10.200.0.0/24"))
	mk(clWinNode(good, func(n *corev1.Node) {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "KubeletUnhealthy", Status: corev1.ConditionFalse, LastTransitionTime: now})
	}))
	mk(clWinNode(bad, func(n *corev1.Node) {
		n.Spec.Taints = nil
		n.Spec.PodCIDR = "10.200.3.0/24"
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.20.16.1"}}
		n.Status.Conditions = []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastTransitionTime: now},
			{Type: "KubeletUnhealthy", Status: corev1.ConditionTrue, Reason: "KubeletUnhealthy", Message: "kubelet service is not running", LastTransitionTime: now},
		}
	}))
	for _, s := range []corev1.Service{clService("kube-system", "kube-dns", "10.32.0.10")} {
		s.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
		if _, err := cs.CoreV1().Services(s.Namespace).Create(ctx, &s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy", Namespace: "kube-system"},
		Data: map[string]string{"config.conf": "kind: KubeProxyConfiguration\nclusterCIDR: 10.200.0.0/16\n"}}
	if _, err := cs.CoreV1().ConfigMaps("kube-system").Create(ctx, kp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"k8s-app": "kube-proxy"}
	ds, err := cs.AppsV1().DaemonSets("kube-system").Create(ctx, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{Name: "kube-proxy", Image: "registry.k8s.io/kube-proxy:v1.30.0"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := []corev1.Pod{
		clPod("default", "iis", good, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
			p.Spec.Tolerations = []corev1.Toleration{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		}),
		clPod("kube-system", "kube-proxy-w2", bad, "registry.k8s.io/kube-proxy:v1.30.0", func(p *corev1.Pod) {
			p.Labels = labels
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true)}}
		}),
		clPod("default", "web", bad, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: p.Spec.Containers[0].Image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerError",
					Message: "hcs::CreateComputeSystem web: The container operating system does not match the host operating system."}}}}
		}),
	}
	for _, p := range pods {
		status := p.Status
		p.UID = ""
		out, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, &p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create pod %s: %v", p.Name, err)
		}
		out.Status = status
		if _, err := cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil && !strings.Contains(err.Error(), "NotFound") {
			t.Fatalf("pod %s status: %v", p.Name, err)
		}
	}
}
