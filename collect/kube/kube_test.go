package kube_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// seedCluster creates a small mixed cluster: two Windows nodes (one known only by
// nodeInfo), one Linux node, kube-dns, kube-proxy's config, pods, events and a DaemonSet.
func seedCluster(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	mkNode(t, cs, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{
			"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.200.2.0/24", PodCIDRs: []string{"10.200.2.0/24"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.0.22"}},
			NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "windows", KernelVersion: "10.0.17763.1879"}},
	})
	mkNode(t, cs, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "win-2"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.0.23"}},
			NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "windows", KernelVersion: "10.0.20348.2227"}},
	})
	mkNode(t, cs, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "linux-1", Labels: map[string]string{"kubernetes.io/os": "linux"}},
		Spec:       corev1.NodeSpec{PodCIDR: "10.200.0.0/24"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.0.20"}},
			NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "linux"}},
	})
	dns := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-dns", Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: corev1.ServiceSpec{ClusterIP: "10.32.0.10", Selector: map[string]string{"k8s-app": "kube-dns"},
			Ports: []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}},
	}
	if _, err := cs.CoreV1().Services("kube-system").Create(ctx, dns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create kube-dns: %v", err)
	}
	kp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy", Namespace: "kube-system"},
		Data: map[string]string{"config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.200.0.0/16\nmode: iptables\n"}}
	if _, err := cs.CoreV1().ConfigMaps("kube-system").Create(ctx, kp, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create kube-proxy configmap: %v", err)
	}
	iis := mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "iis"}, Spec: corev1.PodSpec{NodeName: "win-1"}})
	mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: corev1.PodSpec{NodeName: "linux-1",
		Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}})
	mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "win-pending"},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "windows"}}})
	mkPod(t, cs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "linux-pending"},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "linux"}}})
	for _, e := range []corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Name: "win-1.reboot", Namespace: "default"}, Reason: "Rebooted", Message: "Node win-1 has been rebooted",
			InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "win-1", UID: "win-1"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "iis.failed", Namespace: "default"}, Reason: "Failed", Message: "Error: failed to create containerd task",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "iis", UID: iis.UID}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nginx.pulled", Namespace: "default"}, Reason: "Pulled", Message: "pulled",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "nginx"}},
	} {
		if _, err := cs.CoreV1().Events(e.Namespace).Create(ctx, &e, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create event %s: %v", e.Name, err)
		}
	}
	mkDaemonSet(t, cs, "kube-proxy", map[string]string{"kubernetes.io/os": "linux"})
}

func mkDaemonSet(t *testing.T, cs kubernetes.Interface, name string, nodeSelector map[string]string) *appsv1.DaemonSet {
	t.Helper()
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{NodeSelector: nodeSelector,
					Containers: []corev1.Container{{Name: name, Image: "registry.k8s.io/" + name + ":v1.30.0"}}},
			},
		},
	}
	out, err := cs.AppsV1().DaemonSets("kube-system").Create(t.Context(), ds, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create daemonset %s: %v", name, err)
	}
	return out
}

func TestCollect(t *testing.T) {
	t.Parallel()
	c := kubeapi.Start(t)
	cs := admin(t, c.Config)
	seedCluster(t, cs)
	client := newClient(t, c.Kubeconfig)
	tree := evidence.NewTree()
	d, err := client.Collect(t.Context(), tree)
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}

	if got := names(d.Windows); got != "win-1,win-2" {
		t.Errorf("Windows nodes = %s, want win-1,win-2 (win-2 only by nodeInfo.operatingSystem)", got)
	}
	if got := names(d.All); got != "linux-1,win-1,win-2" {
		t.Errorf("All nodes = %s", got)
	}
	if d.Windows[0].Build != "10.0.17763" || d.Windows[1].Build != "10.0.20348" || d.Windows[0].InternalIP != "10.240.0.22" {
		t.Errorf("node info = %+v", d.Windows)
	}
	if d.KubeDNS != "10.32.0.10" || d.ClusterCIDR != "10.200.0.0/16" || len(d.Skipped) != 0 {
		t.Errorf("KubeDNS %q ClusterCIDR %q Skipped %q", d.KubeDNS, d.ClusterCIDR, d.Skipped)
	}
	// The apiserver states its range in the ServiceCIDR object; an older one leaves
	// only the inference, a lower bound holding 10.32.0.1 and 10.32.0.10.
	svcRange, _ := clusterconfig.IPv4(d.ServiceCIDR)
	if !svcRange.Contains(netip.MustParseAddr("10.32.0.10")) || !netip.MustParsePrefix(kubeapi.ServiceCIDR).Contains(svcRange.Addr()) {
		t.Errorf("ServiceCIDR = %q, want inside %s", d.ServiceCIDR, kubeapi.ServiceCIDR)
	}

	ev := tree.Evidence()
	raw := mustRead(t, ev, evidence.PathNodes)
	assertKubectlList(t, raw, "v1", "Node", 3)
	nodes, err := decode.Nodes(evidence.PathNodes, raw)
	if err != nil || len(nodes) != 3 {
		t.Fatalf("decode nodes: %v (%d)", err, len(nodes))
	}
	pods, err := decode.Pods(evidence.PathPods, mustRead(t, ev, evidence.PathPods))
	if err != nil {
		t.Fatal(err)
	}
	if got := podNames(pods); got != "default/iis,default/win-pending" {
		t.Errorf("pods = %s, want the pod on win-1 and the Pending Windows pod only", got)
	}
	events, err := decode.Events(evidence.PathEvents, mustRead(t, ev, evidence.PathEvents))
	if err != nil {
		t.Fatal(err)
	}
	var evNames []string
	for _, e := range events {
		evNames = append(evNames, e.Name)
	}
	if got := strings.Join(evNames, ","); got != "win-1.reboot,iis.failed" {
		t.Errorf("events = %s, want the win-1 and iis events only", got)
	}
	assertKubectlList(t, mustRead(t, ev, evidence.PathDaemonSets), "apps/v1", "DaemonSet", 1)
	assertKubectlList(t, mustRead(t, ev, evidence.PathServices), "v1", "Service", 2)

	cfg, err := clusterconfig.Decode(evidence.PathClusterConfig, mustRead(t, ev, evidence.PathClusterConfig))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sources["clusterCIDR"] != "ConfigMap kube-system/kube-proxy: config.conf clusterCIDR" ||
		cfg.Sources["kubeDNS"] != "Service kube-system/kube-dns: spec.clusterIP" || cfg.Sources["serviceCIDR"] == "" {
		t.Errorf("sources = %q", cfg.Sources)
	}
	t.Logf("serviceCIDR %s from %s", cfg.ServiceCIDR, cfg.Sources["serviceCIDR"])

	// kubeadm clusters state both ranges in kubeadm-config, which outranks the rest.
	kubeadm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system"},
		Data: map[string]string{"ClusterConfiguration": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nnetworking:\n  serviceSubnet: 10.32.0.0/24\n  podSubnet: 10.244.0.0/16\n  dnsDomain: cluster.local\n"}}
	if _, err := cs.CoreV1().ConfigMaps("kube-system").Create(t.Context(), kubeadm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err = client.Collect(t.Context(), tree)
	if err != nil {
		t.Fatal(err)
	}
	if d.ServiceCIDR != "10.32.0.0/24" || d.ClusterCIDR != "10.244.0.0/16" {
		t.Errorf("with kubeadm-config: service %q cluster %q", d.ServiceCIDR, d.ClusterCIDR)
	}
}

// assertKubectlList checks the shape `kubectl get -o json` prints.
func assertKubectlList(t *testing.T, raw []byte, apiVersion, kind string, n int) {
	t.Helper()
	if !strings.HasPrefix(string(raw), "{\n    \"apiVersion\": \"v1\",\n    \"items\": [") || !strings.HasSuffix(string(raw), "}\n") {
		t.Errorf("%s list not printed as kubectl does:\n%.200s", kind, raw)
	}
	if strings.Contains(string(raw), "managedFields") {
		t.Errorf("%s list shows managedFields; kubectl hides them", kind)
	}
	var doc struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.APIVersion != "v1" || doc.Kind != "List" || len(doc.Items) != n {
		t.Fatalf("%s list: apiVersion %q kind %q, %d items (want v1 List, %d)", kind, doc.APIVersion, doc.Kind, len(doc.Items), n)
	}
	for i, it := range doc.Items {
		if it.APIVersion != apiVersion || it.Kind != kind {
			t.Errorf("item %d: apiVersion %q kind %q, want %s %s", i, it.APIVersion, it.Kind, apiVersion, kind)
		}
	}
}

func TestBadContext(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config")
	if err := kubeapi.WriteKubeconfig(path, "admin", &rest.Config{Host: "https://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	_, err := kube.New(flags(path, "prod-eu"))
	if err == nil {
		t.Fatal("New with a missing context succeeded")
	}
	t.Log(err)
	for _, want := range []string{`context "prod-eu" does not exist`, "contexts that do: " + kubeapi.ContextName, "--context"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	// A port that was just free and is closed again: connection refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "https://" + l.Addr().String()
	l.Close()
	path := filepath.Join(t.TempDir(), "config")
	if err := kubeapi.WriteKubeconfig(path, "admin", &rest.Config{Host: url, BearerToken: "x"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = newClient(t, path).Collect(t.Context(), evidence.NewTree())
	if err == nil {
		t.Fatal("Collect against a closed port succeeded")
	}
	t.Log(err)
	var ae *kube.APIError
	if !errors.As(err, &ae) || ae.Kind != kube.ErrUnreachable {
		t.Errorf("error is not ErrUnreachable: %#v", err)
	}
	for _, want := range []string{"cannot reach the API server at " + url, "kubectl --context wts-test cluster-info", "list nodes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to give up on a refused connection", d)
	}
}

func names(ns []kube.NodeInfo) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return strings.Join(out, ",")
}

func podNames(ps []corev1.Pod) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return strings.Join(out, ",")
}

func mustRead(t *testing.T, ev evidence.Evidence, p string) []byte {
	t.Helper()
	b, err := ev.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
