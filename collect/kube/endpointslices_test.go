package kube_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// TestCollectEndpointSlices: the slices a real apiserver serves land in
// cluster/endpointslices.json as kubectl prints them, and decode back to the Service's
// ready and not-ready addresses. The test apiserver runs no controller manager, so the
// slice is created here as the EndpointSlice controller would write it.
func TestCollectEndpointSlices(t *testing.T) {
	t.Parallel()
	c := kubeapi.Start(t)
	cs := admin(t, c.Config)
	seedCluster(t, cs)
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-dns-x7k2p", Namespace: "kube-system",
			Labels: map[string]string{discoveryv1.LabelServiceName: "kube-dns", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.200.0.4"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			{Addresses: []string{"10.200.1.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}},
		},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("dns"), Port: ptr.To[int32](53)}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("kube-system").Create(t.Context(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tree := evidence.NewTree()
	if _, err := newClient(t, c.Kubeconfig).Collect(t.Context(), tree); err != nil {
		t.Fatal(err)
	}
	b, err := tree.Evidence().Read(evidence.PathEndpointSlices)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"apiVersion": "discovery.k8s.io/v1"`) || !strings.Contains(string(b), `"kind": "EndpointSlice"`) {
		t.Errorf("not kubectl's list form:\n%.400s", b)
	}
	items, err := decode.EndpointSlices(evidence.PathEndpointSlices, b)
	if err != nil {
		t.Fatal(err)
	}
	got := decode.EndpointsOf(items, "kube-system", "kube-dns")
	if strings.Join(got.Ready, ",") != "10.200.0.4" || strings.Join(got.NotReady, ",") != "10.200.1.3" {
		t.Errorf("kube-dns endpoints = %+v", got)
	}
}

// TestCollectKubernetesSlice: the selector-less default/kubernetes Service's EndpointSlice
// is collected like any other, so SVC-LB-POLICY can judge the API server's ClusterIP load
// balancer from it. kube-apiserver writes that slice itself (its endpoint reconciler,
// pkg/controlplane/reconcilers/endpointsadapter.go: name "kubernetes", the only label
// kubernetes.io/service-name, one ready endpoint per API server, port "https"); the test
// apiserver runs with --endpoint-reconciler-type=none (it rejects the loopback advertise
// address), so the slice is created here in that shape.
func TestCollectKubernetesSlice(t *testing.T) {
	t.Parallel()
	c := kubeapi.Start(t)
	cs := admin(t, c.Config)
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "kubernetes", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.240.0.10"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](6443), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Create(t.Context(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tree := evidence.NewTree()
	if _, err := newClient(t, c.Kubeconfig).Collect(t.Context(), tree); err != nil {
		t.Fatal(err)
	}
	b, err := tree.Evidence().Read(evidence.PathEndpointSlices)
	if err != nil {
		t.Fatal(err)
	}
	items, err := decode.EndpointSlices(evidence.PathEndpointSlices, b)
	if err != nil {
		t.Fatal(err)
	}
	got := decode.EndpointsOf(items, "default", "kubernetes")
	if got.Slices != 1 || strings.Join(got.Ready, ",") != "10.240.0.10" {
		t.Errorf("default/kubernetes endpoints = %+v in:\n%.600s", got, b)
	}
}
