package hostprocess

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
)

// TestUnfitNodesToldApart: the nodes this transport cannot serve are refused before any
// pod is made, each saying what to use instead; the ones it can serve, and nodes whose
// Node object says nothing yet, are not. The node info strings are what kubelets report
// (containerRuntimeVersion "<runtime>://<version>", osImage PRETTY_NAME).
func TestUnfitNodesToldApart(t *testing.T) {
	cases := []struct {
		runtime, osImage string
		linux            bool
		want             string // "" fits
	}{
		{"containerd://1.7.20", "Windows Server 2022 Datacenter", false, ""},
		{"containerd://1.6.0", "Windows Server 2019 Datacenter", false, ""},
		{"containerd://2.0.2", "Windows Server 2025 Datacenter", false, ""},
		{"containerd://v1.6.18-azure", "Windows Server 2022 Datacenter", false, ""},
		{"", "", false, ""},
		{"docker://20.10.9", "Windows Server 2019 Datacenter", false, "need containerd 1.6 or later"},
		{"containerd://1.5.13", "Windows Server 2019 Datacenter", false, "need containerd 1.6 or later"},
		{"containerd://1.7.13", "Ubuntu 22.04.4 LTS", true, ""},
		{"containerd://1.6.20+bottlerocket", "Bottlerocket OS 1.19.2 (aws-k8s-1.29)", true, "no host shell"},
		{"containerd://2.0.5", "Talos (v1.10.3)", true, "no shell or SSH"},
	}
	for _, c := range cases {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
			Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{ContainerRuntimeVersion: c.runtime, OSImage: c.osImage}}}
		tr := &Transport{run: &Run{opts: Options{Client: fake.NewClientset(node)}}, node: "n1", linux: c.linux}
		err := tr.checkNode(t.Context())
		var te *transport.Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s / %s: refused: %v", c.runtime, c.osImage, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &te) || te.Hint == ""):
			t.Errorf("%s / %s: got %v, want a refusal with %q and what to use instead", c.runtime, c.osImage, err, c.want)
		}
	}
}
