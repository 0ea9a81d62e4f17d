package fakenode_test

import (
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

func startKubelet(t *testing.T, c *kubeapi.Cluster, host string, logs map[string][]byte, mode string) (*fakenode.Kubelet, *kubernetes.Clientset) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(c.Config)
	ip := host
	if ip == "" {
		ip = "127.0.0.1"
	}
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP(ip))
	if err != nil {
		t.Fatal(err)
	}
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: "win-1", Client: cs, TLS: tlsCfg, Host: host,
		Responder: fakenode.NewNode(fakenode.NodeOptions{}), Logs: logs, LogQuery: mode, Taint: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k, cs
}

// TestKubeletRegisters: the Node carries what the apiserver needs to reach the kubelet
// (InternalIP, kubelet port) and what the tool selects Windows nodes by.
func TestKubeletRegisters(t *testing.T) {
	c := kubeapi.Start(t)
	k, cs := startKubelet(t, c, "", nil, "")
	n, err := cs.CoreV1().Nodes().Get(t.Context(), "win-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Labels["kubernetes.io/os"] != "windows" || n.Status.DaemonEndpoints.KubeletEndpoint.Port != int32(k.Port()) ||
		len(n.Status.Addresses) == 0 || n.Status.Addresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}) ||
		!hasTaint(n.Spec.Taints, "node.kubernetes.io/os") {
		t.Fatalf("node = labels %v, port %d (kubelet %d), addresses %v, taints %v", n.Labels,
			n.Status.DaemonEndpoints.KubeletEndpoint.Port, k.Port(), n.Status.Addresses, n.Spec.Taints)
	}
}

// TestKubeletNodeLogQuery: /api/v1/nodes/win-1/proxy/logs/ through the real apiserver
// answers as a Windows kubelet does (KEP 2258), in each mode.
func TestKubeletNodeLogQuery(t *testing.T) {
	host := fakenode.ProxyableHost()
	if host == "" {
		t.Skip("no non-loopback IPv4 address on this machine: the apiserver does not proxy node requests to loopback")
	}
	c := kubeapi.Start(t)
	logs := map[string][]byte{"kubelet": []byte("I0502 09:14:07.123456    4242 server.go:1] started\n")}
	_, cs := startKubelet(t, c, host, logs, "")
	get := func(params ...string) (string, error) {
		req := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/win-1/proxy/logs/")
		for i := 0; i+1 < len(params); i += 2 {
			req = req.Param(params[i], params[i+1])
		}
		b, err := req.DoRaw(t.Context())
		return string(b), err
	}
	for _, tc := range []struct {
		params []string
		want   string
		fails  bool
	}{
		{[]string{"query", "kubelet"}, "started", false},
		{[]string{"query", "kubelet", "tailLines", "10"}, "options present and query resolved to log files for [kubelet]", false},
		{[]string{"query", "containerd"}, "log not found for containerd", false},
		{[]string{"query", "kubelet", "sinceTime", "yesterday"}, "invalid time format", true},
	} {
		got, err := get(tc.params...)
		if (err != nil) != tc.fails || !strings.Contains(got+errText(err), tc.want) {
			t.Errorf("logs %v = %q, %v; want %q (fails %v)", tc.params, got, err, tc.want, tc.fails)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func hasTaint(ts []corev1.Taint, key string) bool {
	for _, t := range ts {
		if t.Key == key {
			return true
		}
	}
	return false
}
