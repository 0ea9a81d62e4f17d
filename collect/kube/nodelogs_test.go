package kube_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

const kubeletLogText = "I0502 09:14:07.123456    4242 server.go:1] first\nI0502 09:14:08.123456    4242 server.go:2] second\n"

// nodeLogCluster is a real apiserver and a fake kubelet on an address it proxies node
// requests to (it refuses loopback), serving a kubelet log.
func nodeLogCluster(t *testing.T, mode string) *kube.Client {
	t.Helper()
	host := fakenode.ProxyableHost()
	if host == "" {
		t.Skip("no non-loopback IPv4 address here: the apiserver does not proxy node requests to loopback (isProxyableHostname)")
	}
	c := kubeapi.Start(t)
	tlsCfg, err := c.KubeletServerTLS(net.ParseIP(host))
	if err != nil {
		t.Fatal(err)
	}
	k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: "win-1", Client: kubernetes.NewForConfigOrDie(c.Config),
		TLS: tlsCfg, Host: host, Responder: fakenode.NewNode(fakenode.NodeOptions{}), LogQuery: mode,
		Logs: map[string][]byte{"kubelet": []byte(kubeletLogText)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return newClient(t, c.Kubeconfig)
}

// TestFillNodeLogs: a log the sweep did not give comes from node log query, with a note
// naming the request; a log the sweep gave is kept; one the kubelet lacks keeps its .err.
func TestFillNodeLogs(t *testing.T) {
	client := nodeLogCluster(t, "")
	tree := evidence.NewTree()
	tree.Put("nodes/win-1/kubelet.log.err", []byte("exit 1\nno kubelet log under C:\\k\n"))
	tree.Put("nodes/win-1/kube-proxy.log", []byte("from the node\n"))
	tree.Put("nodes/win-1/log-runtime.log.err", []byte("exit 1\nno containerd log\n"))
	if _, err := client.Collect(t.Context(), evidence.NewTree()); err != nil { // node log query follows discovery
		t.Fatal(err)
	}
	missed := client.FillNodeLogs(t.Context(), tree, "win-1", []string{"kubelet.log", "kube-proxy.log", "log-runtime.log", "host.json"},
		kube.NodeLogOptions{Since: time.Hour, MaxBytes: 60})
	ev := tree.Evidence()
	got, err := ev.Read("nodes/win-1/kubelet.log")
	if err != nil || string(got) != "I0502 09:14:08.123456    4242 server.go:2] second\n" {
		t.Errorf("kubelet.log = %q, %v; want its last whole line within 60 bytes", got, err)
	}
	if _, err := ev.Read("nodes/win-1/kubelet.log.err"); err == nil {
		t.Error("kubelet.log.err stayed next to the filled log")
	}
	note, _ := ev.Read("nodes/win-1/kubelet.log.note")
	for _, want := range []string{"from node log query: GET /api/v1/nodes/win-1/proxy/logs/?query=kubelet", "no kubelet log under", "takes no sinceTime", "last 60 bytes"} {
		if !strings.Contains(string(note), want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if b, _ := ev.Read("nodes/win-1/kube-proxy.log"); string(b) != "from the node\n" {
		t.Errorf("the node's own kube-proxy.log was replaced: %q", b)
	}
	if _, err := ev.Read("nodes/win-1/log-runtime.log.err"); err != nil || len(missed) != 1 || !strings.Contains(missed[0], "log not found for containerd") {
		t.Errorf("containerd: .err %v, missed %q", err, missed)
	}
}

// TestNodeLogQueryOff: a kubelet without the feature, or with the handler disabled, is
// no log (ErrNoNodeLog) with the reason, not an error page stored as a log. The fake lists
// C:\var\log as net/http does since Go 1.21 (doctype and meta before <pre>), and answers
// 404 where that folder is missing.
func TestNodeLogQueryOff(t *testing.T) {
	for mode, want := range map[string]string{"off": "enableSystemLogQuery: true", "disabled": "enableSystemLogHandler",
		"off-no-folder": `C:\var\log) is missing`} {
		t.Run(mode, func(t *testing.T) {
			client := nodeLogCluster(t, mode)
			_, err := client.NodeLog(t.Context(), "win-1", "kubelet", kube.NodeLogOptions{})
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, kube.ErrNoNodeLog) {
				t.Fatalf("err = %v, want ErrNoNodeLog naming %s", err, want)
			}
		})
	}
}
