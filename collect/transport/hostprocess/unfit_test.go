package hostprocess_test

import (
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestUnfitNodesRefusedThroughTheAPI: fake kubelets register their nodes through the real
// API server with the node info real kubelets report. A Docker Windows node and one on
// containerd 1.5 (HostProcess needs containerd 1.6), a Bottlerocket and a Talos node (no
// host shell) are refused before any pod is made, each with what to use instead; no exec
// reaches their kubelets. A CentOS 7 node is not refused: its old iproute is met inside the
// sweep, which falls back to ip's text (TestLinuxIPWithoutJSON in collect/scripts), and a
// current containerd Windows node sweeps as usual.
func TestUnfitNodesRefusedThroughTheAPI(t *testing.T) {
	w := newWorld(t)
	tlsCfg, err := w.c.KubeletServerTLS(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	win, _, _, err := scenarios.Load("healthy-containerd-overlay")
	if err != nil {
		t.Fatal(err)
	}
	lin, _, _, err := scenarios.Load(linuxScenario)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		node, os, runtime, image string
		want                     []string // nil: served
	}{
		{"win-docker", "", "docker://20.10.9", "Windows Server 2019 Datacenter", []string{"runs docker://20.10.9: HostProcess pods need containerd 1.6 or later", "--transport winrm"}},
		{"win-ctrd15", "", "containerd://1.5.13", "Windows Server 2019 Datacenter", []string{"containerd://1.5.13", "upgrade containerd"}},
		{"br-1", "linux", "containerd://1.6.20+bottlerocket", "Bottlerocket OS 1.19.2 (aws-k8s-1.29)", []string{"no host shell", "apiclient exec admin", "sheltie"}},
		{"talos-1", "linux", "containerd://2.0.5", "Talos (v1.10.3)", []string{"no shell or SSH", "talosctl"}},
		{"centos-7", "linux", "containerd://1.6.33", "CentOS Linux 7 (Core)", nil},
		{"win-ctrd17", "", "containerd://1.7.20", "Windows Server 2022 Datacenter", nil},
	}
	r := w.run(t, hostprocess.Options{})
	for _, c := range cases {
		scenario, from, osKind := win, "win-1", evidence.Windows
		if c.os == "linux" {
			scenario, from, osKind = lin, "node-0", evidence.Linux
		}
		var resp fakenode.Responder = fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario, Node: from})
		if c.os == "linux" {
			resp = fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: scenario, Node: from})
		}
		k, err := fakenode.StartKubelet(t.Context(), fakenode.KubeletOptions{Name: c.node, Client: w.cs, TLS: tlsCfg,
			Responder: resp, OS: c.os, RuntimeVersion: c.runtime, OSImage: c.image})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
		tr := dial(t, r, c.node)
		_, err = sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"host.json", evidence.FileLinuxOS}, OS: osKind})
		if cerr := tr.Close(); cerr != nil {
			t.Errorf("%s: close: %v", c.node, cerr)
		}
		execs := slices.Contains(k.Events(), "exec")
		switch {
		case c.want == nil && (err != nil || !execs):
			t.Errorf("%s (%s, %s): not served: %v", c.node, c.runtime, c.image, err)
		case c.want != nil && (err == nil || execs):
			t.Errorf("%s (%s, %s): served (exec reached the kubelet: %v), want a refusal: %v", c.node, c.runtime, c.image, execs, err)
		case c.want != nil:
			for _, p := range c.want {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("%s: the refusal %q does not say %q", c.node, err, p)
				}
			}
		}
	}
	w.assertNoPods(t)
}
