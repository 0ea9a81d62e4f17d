package clusterconfig

import (
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestInferServiceCIDR(t *testing.T) {
	for _, tc := range []struct {
		kubernetes string
		others     []string
		want       string
	}{
		{"10.32.0.1", []string{"10.32.0.10"}, "10.32.0.0/28"},                            // KTHW: a lower bound of the real /24
		{"10.32.0.1", []string{"10.32.0.10", "10.32.0.200", "None", ""}, "10.32.0.0/24"}, // more Services narrow it down
		{"10.96.0.1", []string{"10.96.0.10", "10.104.3.7"}, "10.96.0.0/12"},              // kubeadm default
		{"10.0.0.1", []string{"192.168.0.10"}, "10.0.0.0/31"},                            // an IP outside any aligned range is ignored
	} {
		p, src, ok := InferServiceCIDR(tc.kubernetes, tc.others)
		if !ok || p.String() != tc.want || !strings.HasPrefix(src, InferredPrefix) {
			t.Errorf("InferServiceCIDR(%s, %v) = %s %q %v, want %s", tc.kubernetes, tc.others, p, src, ok, tc.want)
		}
	}
	if _, _, ok := InferServiceCIDR("", nil); ok {
		t.Error("inferred a range without the kubernetes Service")
	}
	if _, _, ok := InferServiceCIDR("fd00::1", nil); ok {
		t.Error("inferred an IPv6 range (HNS policies are IPv4)")
	}
}

func TestInferClusterCIDR(t *testing.T) {
	p, src, ok := InferClusterCIDR([]string{"10.200.0.0/24", "", "10.200.2.0/24", "bogus", "10.200.1.0/24"})
	if !ok || p.String() != "10.200.0.0/22" || !strings.Contains(src, "3 node(s)") {
		t.Errorf("got %s %q %v", p, src, ok)
	}
	if _, _, ok := InferClusterCIDR([]string{""}); ok {
		t.Error("inferred from no podCIDRs")
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	var c Config
	c.Set(KeyServiceCIDR, "10.96.0.0/12,fd00::/108", "ConfigMap kube-system/kubeadm-config")
	c.Set(KeyClusterCIDR, "10.244.0.0/16", InferredPrefix+" (lower bound)")
	c.Set(KeyKubeDNS, "", "ignored")
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode("cluster/cluster-config.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := IPv4(got.ServiceCIDR); !ok || p.String() != "10.96.0.0/12" || !got.Inferred(KeyClusterCIDR) || got.Inferred(KeyServiceCIDR) || got.KubeDNS != "" {
		t.Errorf("round trip: %+v", got)
	}
	// By hand, with a BOM and no sources: authoritative.
	got, err = Decode("x", []byte("\ufeff{\"serviceCIDR\": \"10.32.0.0/24\", \"kubeDNS\": \"10.32.0.10\"}"))
	if err != nil || got.Inferred(KeyServiceCIDR) || got.KubeDNS != "10.32.0.10" {
		t.Errorf("hand-written: %+v %v", got, err)
	}
	for _, bad := range []string{`{"serviceCIDR": "10.32.0.0"}`, `{"kubeDNS": "dns"}`, `[]`} {
		if _, err := Decode("cluster/cluster-config.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "cluster/cluster-config.json") {
			t.Errorf("Decode(%s) = %v", bad, err)
		}
	}
}

func TestInferFromObjects(t *testing.T) {
	svc := func(ns, name, ip string, labels map[string]string) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Spec: corev1.ServiceSpec{ClusterIP: ip}}
	}
	svcs := []corev1.Service{
		svc("default", "kubernetes", "10.32.0.1", nil),
		svc("kube-system", "dns-headless", "None", map[string]string{"k8s-app": "kube-dns"}),
		svc("kube-system", "coredns", "10.32.0.10", map[string]string{"k8s-app": "kube-dns"}),
		svc("default", "kube-dns", "10.32.0.99", nil), // not kube-system: not the cluster DNS
	}
	nodes := []corev1.Node{{Spec: corev1.NodeSpec{PodCIDR: "10.200.0.0/24"}}, {Spec: corev1.NodeSpec{PodCIDR: "10.200.3.0/24"}}}
	var c Config
	c.Infer(nodes, svcs)
	if c.KubeDNS != "10.32.0.10" || c.Sources[KeyKubeDNS] != "Service kube-system/coredns: spec.clusterIP" {
		t.Errorf("kube-dns %q from %q", c.KubeDNS, c.Sources[KeyKubeDNS])
	}
	if c.ServiceCIDR != "10.32.0.0/25" || !c.Inferred(KeyServiceCIDR) || c.ClusterCIDR != "10.200.0.0/22" || !c.Inferred(KeyClusterCIDR) {
		t.Errorf("ranges: %+v", c)
	}
	// Values already known (read or hand-written) win over inference.
	known := Config{ServiceCIDR: "10.32.0.0/24", KubeDNS: "10.32.0.10"}
	known.Infer(nodes, svcs)
	if known.ServiceCIDR != "10.32.0.0/24" || known.Inferred(KeyServiceCIDR) || known.Sources[KeyKubeDNS] != "" {
		t.Errorf("known values replaced: %+v", known)
	}
}

func TestPrefixes(t *testing.T) {
	ps, err := Prefixes(" fd00::/108 , 10.96.0.5/12")
	if err != nil || len(ps) != 2 || ps[1].String() != "10.96.0.0/12" {
		t.Errorf("Prefixes = %v, %v", ps, err)
	}
	if p, ok := IPv4("fd00::/108,10.96.0.0/12"); !ok || p.String() != "10.96.0.0/12" {
		t.Errorf("IPv4 = %v %v", p, ok)
	}
	if !Covers(ps[1], netip.MustParsePrefix("10.100.0.0/16")) || Covers(netip.MustParsePrefix("10.100.0.0/16"), ps[1]) {
		t.Error("Covers")
	}
}
