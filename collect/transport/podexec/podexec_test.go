package podexec_test

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/podexec"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// cluster is what the transport needs of the run's cluster client.
type cluster struct {
	cs  kubernetes.Interface
	cfg *rest.Config
}

func (c cluster) Interface() kubernetes.Interface { return c.cs }
func (c cluster) RESTConfig() *rest.Config        { return c.cfg }
func (c cluster) Namespace() string               { return "default" }

// direct is the fake node answering in-process.
type direct struct{ n *fakenode.Node }

func (d direct) Run(ctx context.Context, c transport.Command) (transport.Output, error) {
	r := d.n.Respond(ctx, c.CommandLine, c.Stdin)
	return transport.Output{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode}, nil
}
func (direct) Close() error { return nil }

// agentPod is a DaemonSet's pod on node, HostProcess or not, as the API server stores it.
func agentPod(t *testing.T, cs kubernetes.Interface, name, node string, hostProcess bool) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
			Labels: map[string]string{"app.kubernetes.io/name": "wintroubleshoot-agent"}},
		Spec: corev1.PodSpec{NodeName: node, HostNetwork: hostProcess,
			SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
				HostProcess: ptr.To(hostProcess), RunAsUserName: ptr.To(`NT AUTHORITY\SYSTEM`)}},
			Containers: []corev1.Container{{Name: "agent", Image: "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"}}},
	}
	if !hostProcess {
		p.Spec.SecurityContext.WindowsOptions.RunAsUserName = nil
	}
	if _, err := cs.CoreV1().Pods("kube-system").Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		got, err := cs.CoreV1().Pods("kube-system").Get(t.Context(), name, metav1.GetOptions{})
		if err == nil && got.Status.Phase == corev1.PodRunning {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pod %s never ran", name)
}

// TestSweepThroughAnExistingPod: with a HostProcess agent pod on the node, the sweep
// exec'd into it (real API server, pods/exec, the fake kubelet's streaming server) gives
// exactly the node's own files, and the transport creates no pod; a pod that is not
// HostProcess is refused with the reason, and a node without one says what to deploy.
func TestSweepThroughAnExistingPod(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	fsys, _, _, err := scenarios.Load("healthy-containerd-overlay")
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	fakes := map[string]*fakenode.Node{}
	for _, node := range []string{"win-1", "win-2", "win-3"} {
		fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: "winpool-7k2pq"})
		k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: node, Client: cs, TLS: tlsCfg, Responder: fake})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
		fakes[node] = fake
	}
	agentPod(t, cs, "agent-a", "win-1", true)
	agentPod(t, cs, "agent-b", "win-2", false)

	spec := podexec.Spec()
	spec.Attach(cluster{cs, c.Config})
	r := probes.Default()
	names := r.NodeNeeds(r.Probes())
	dial := func(node string) transport.Transport {
		tr, err := spec.Dial(transport.Config{Kind: podexec.Kind, Node: node, Timeout: time.Minute}, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	before, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := dial("win-1")
	got, err := sweep.Run(t.Context(), tr, sweep.Request{Names: names})
	if err != nil {
		t.Fatalf("sweep through the agent pod: %v", err)
	}
	want, err := sweep.Run(t.Context(), direct{fakes["win-1"]}, sweep.Request{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the sweep through the pod differs from the node's own answer: %d files vs %d", len(got), len(want))
	}
	if k, addr := tr.(transport.Endpoint).Endpoint(); k != podexec.Kind || addr != "kube-system/agent-a" {
		t.Errorf("endpoint %s %s, want podexec kube-system/agent-a", k, addr)
	}
	after, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Items) != len(before.Items) {
		t.Errorf("the transport changed the pods: %d before, %d after", len(before.Items), len(after.Items))
	}

	for node, wantErr := range map[string]string{
		"win-2": "container agent is not HostProcess",
		"win-3": "no pod matching \"app.kubernetes.io/name=wintroubleshoot-agent\" runs on node win-3",
	} {
		_, err := dial(node).Run(t.Context(), transport.Command{CommandLine: "powershell.exe -NoProfile -Command -"})
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want %q", node, err, wantErr)
		}
	}
}

// TestSelectorValidated: a bad selector is a usage error before anything connects.
func TestSelectorValidated(t *testing.T) {
	o := podexec.Flags{Selector: "app in ("}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--podexec-selector") {
		t.Errorf("bad selector accepted: %v", err)
	}
}
