package hostprocess_test

import (
	"context"
	"io/fs"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// world is a real apiserver with fake kubelets answering from a scenario.
type world struct {
	c  *kubeapi.Cluster
	cs *kubernetes.Clientset
}

func newWorld(t *testing.T) *world {
	t.Helper()
	c := kubeapi.Start(t)
	return &world{c: c, cs: kubernetes.NewForConfigOrDie(c.Config)}
}

// kubelet starts a fake kubelet for one node of a scenario.
func (w *world) kubelet(t *testing.T, scenario, node string, faults *fakenode.KubeletFaults) (*fakenode.Kubelet, *fakenode.Node) {
	t.Helper()
	return w.kubeletNode(t, scenario, node, fakenode.NodeOptions{}, faults)
}

// kubeletNode is kubelet with the fake node's own options (its faults).
func (w *world) kubeletNode(t *testing.T, scenario, node string, opts fakenode.NodeOptions, faults *fakenode.KubeletFaults) (*fakenode.Kubelet, *fakenode.Node) {
	t.Helper()
	fsys, _, _, err := scenarios.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	return w.kubeletFS(t, fsys, node, opts, faults)
}

// kubeletFS is kubeletNode over a scenario tree.
func (w *world) kubeletFS(t *testing.T, fsys fs.FS, node string, opts fakenode.NodeOptions, faults *fakenode.KubeletFaults) (*fakenode.Kubelet, *fakenode.Node) {
	t.Helper()
	opts.Scenario, opts.Node = fsys, node
	fake := fakenode.NewNode(opts)
	tlsCfg, err := w.c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: node, Client: w.cs, TLS: tlsCfg,
		Responder: fake, Faults: faults, Taint: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k, fake
}

func (w *world) run(t *testing.T, opts hostprocess.Options) *hostprocess.Run {
	t.Helper()
	if opts.Client == nil {
		opts.Client, opts.Config = w.cs, w.c.Config
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = time.Minute
	}
	r, err := hostprocess.NewRun(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dial(t *testing.T, r *hostprocess.Run, node string) *hostprocess.Transport {
	t.Helper()
	tr, err := r.Dial(transport.Config{Kind: transport.HostProcess, Node: node, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// ourPods are the pods this package made that are still there, in any namespace.
func (w *world) ourPods(t *testing.T) []corev1.Pod {
	t.Helper()
	list, err := w.cs.CoreV1().Pods("").List(context.Background(),
		metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func (w *world) assertNoPods(t *testing.T) {
	t.Helper()
	if pods := w.ourPods(t); len(pods) != 0 {
		var names []string
		for _, p := range pods {
			names = append(names, p.Namespace+"/"+p.Name)
		}
		t.Fatalf("pods left behind: %v", names)
	}
}

// waitPodRunning returns once one of this package's pods runs (or ctx ends).
func (w *world) waitPodRunning(t *testing.T, ctx context.Context) {
	sel := metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue}
	wi, err := w.cs.CoreV1().Pods("").Watch(ctx, sel)
	if err != nil {
		t.Error(err)
		return
	}
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		if p, ok := ev.Object.(*corev1.Pod); ok && p.Status.Phase == corev1.PodRunning {
			return
		}
	}
}

// leftover creates a pod as a run named run would, needed until expires (RFC 3339).
func (w *world) leftover(t *testing.T, run, expires string) string {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "wintroubleshoot-", Namespace: "default",
			Labels:      map[string]string{hostprocess.ManagedByLabel: hostprocess.ManagedByValue, hostprocess.RunLabel: run},
			Annotations: map[string]string{hostprocess.ExpiresAnnotation: expires}},
		Spec: corev1.PodSpec{NodeName: "win-1", HostNetwork: true,
			Containers: []corev1.Container{{Name: "sweep", Image: hostprocess.DefaultImage}}},
	}
	got, err := w.cs.CoreV1().Pods("default").Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Name
}
