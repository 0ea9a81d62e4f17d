// Package clusterconfig is the shape of cluster/cluster-config.json (the cluster's address
// plan) and the pure rules that infer it from API objects. It imports API types but no
// client, so the collector (collect/kube, which writes the file) and the probes (which
// read it, and infer the same way when it is absent) share one definition.
package clusterconfig

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Config is cluster/cluster-config.json. A support engineer may write it by hand:
//
//	{
//	  "serviceCIDR": "10.32.0.0/24",
//	  "clusterCIDR": "10.200.0.0/16",
//	  "kubeDNS": "10.32.0.10",
//	  "sources": {
//	    "serviceCIDR": "ServiceCIDR kubernetes (networking.k8s.io/v1): spec.cidrs",
//	    "clusterCIDR": "ConfigMap kube-system/kube-proxy: config.conf clusterCIDR",
//	    "kubeDNS": "Service kube-system/kube-dns: spec.clusterIP"
//	  }
//	}
//
// Every field is optional and "" means unknown. A CIDR field may hold an IPv4 and an IPv6
// range separated by a comma (dual stack), as kubeadm writes them. Sources says where each
// value came from; a source starting with "inferred" marks a lower bound guessed from
// addresses in use (the real range may be larger), never a value read from configuration.
// A hand-written file without sources is taken as authoritative.
type Config struct {
	ServiceCIDR string            `json:"serviceCIDR,omitempty"`
	ClusterCIDR string            `json:"clusterCIDR,omitempty"`
	KubeDNS     string            `json:"kubeDNS,omitempty"`
	Sources     map[string]string `json:"sources,omitempty"`
}

// Source keys, equal to the JSON field names.
const (
	KeyServiceCIDR = "serviceCIDR"
	KeyClusterCIDR = "clusterCIDR"
	KeyKubeDNS     = "kubeDNS"
)

// InferredPrefix starts the source of every inferred value.
const InferredPrefix = "inferred"

// Inferred reports whether the value under key was guessed rather than read.
func (c Config) Inferred(key string) bool {
	return strings.HasPrefix(c.Sources[key], InferredPrefix)
}

// Set records a value and its source; an empty value is ignored.
func (c *Config) Set(key, value, source string) {
	if value == "" {
		return
	}
	switch key {
	case KeyServiceCIDR:
		c.ServiceCIDR = value
	case KeyClusterCIDR:
		c.ClusterCIDR = value
	case KeyKubeDNS:
		c.KubeDNS = value
	default:
		return
	}
	if c.Sources == nil {
		c.Sources = map[string]string{}
	}
	c.Sources[key] = source
}

// Marshal renders the file (indented like kubectl output, newline-terminated).
func (c Config) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("encoding cluster config: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode reads cluster-config.json, refusing values that are not CIDRs or an IP, so a
// typo in a hand-written file is reported rather than silently ignored.
func Decode(file string, b []byte) (Config, error) {
	var c Config
	b = []byte(strings.TrimPrefix(string(b), "\ufeff"))
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: not a cluster config (want {\"serviceCIDR\": ..., \"clusterCIDR\": ..., \"kubeDNS\": ...}): %w", file, err)
	}
	for key, v := range map[string]string{KeyServiceCIDR: c.ServiceCIDR, KeyClusterCIDR: c.ClusterCIDR} {
		if v == "" {
			continue
		}
		if _, err := Prefixes(v); err != nil {
			return c, fmt.Errorf("%s: %s: %w", file, key, err)
		}
	}
	if c.KubeDNS != "" {
		if _, err := netip.ParseAddr(c.KubeDNS); err != nil {
			return c, fmt.Errorf("%s: kubeDNS %q is not an IP address", file, c.KubeDNS)
		}
	}
	return c, nil
}

// Prefixes parses a comma-separated CIDR list ("10.96.0.0/12,fd00::/108"), masking host bits.
func Prefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// IPv4 returns the first IPv4 range of a comma-separated CIDR list; ok false when none.
// Windows HNS policies (ExceptionList, routes) are IPv4.
func IPv4(s string) (netip.Prefix, bool) {
	ps, err := Prefixes(s)
	if err != nil {
		return netip.Prefix{}, false
	}
	for _, p := range ps {
		if p.Addr().Is4() {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// InferServiceCIDR guesses the service range when nothing in the cluster states it.
//
// The apiserver gives Service default/kubernetes the first address of its range, so the
// range's network address is that ClusterIP minus one, and the range is aligned there. Every
// other ClusterIP lies in it too (unless a second ServiceCIDR was added). The result is the
// smallest such aligned range holding them all: a lower bound. The real range may be larger
// (kubeadm's default is a /12), which is why the source says "inferred".
func InferServiceCIDR(kubernetesIP string, clusterIPs []string) (netip.Prefix, string, bool) {
	k, err := netip.ParseAddr(kubernetesIP)
	if err != nil || !k.Is4() {
		return netip.Prefix{}, "", false
	}
	network := k.Prev()
	// The broadest range whose network address is still `network`.
	broadest := netip.PrefixFrom(network, 32)
	for bits := 31; bits >= 1; bits-- {
		p := netip.PrefixFrom(network, bits)
		if p.Masked().Addr() != network {
			break
		}
		broadest = p
	}
	want := []netip.Addr{k}
	for _, s := range clusterIPs {
		a, err := netip.ParseAddr(s)
		if err == nil && a.Is4() && broadest.Contains(a) && a != k {
			want = append(want, a)
		}
	}
	for bits := 31; bits >= broadest.Bits(); bits-- {
		p := netip.PrefixFrom(network, bits)
		if containsAll(p, want) {
			return p, fmt.Sprintf("%s (lower bound) from Service default/kubernetes ClusterIP %s, the first address of the range, and %d other Service ClusterIP(s): the real range may be larger",
				InferredPrefix, kubernetesIP, len(want)-1), true
		}
	}
	return netip.Prefix{}, "", false
}

// InferClusterCIDR guesses the cluster (pod) range as the smallest range holding every
// node's podCIDR: a lower bound again, exact only when the nodes fill the range.
func InferClusterCIDR(podCIDRs []string) (netip.Prefix, string, bool) {
	var out netip.Prefix
	n := 0
	for _, s := range podCIDRs {
		p, ok := IPv4(s)
		if !ok {
			continue
		}
		n++
		if !out.IsValid() {
			out = p
			continue
		}
		for !covers(out, p) {
			out = netip.PrefixFrom(out.Addr(), out.Bits()-1).Masked()
		}
	}
	if n == 0 {
		return netip.Prefix{}, "", false
	}
	return out, fmt.Sprintf("%s (lower bound): the smallest range holding the podCIDRs of %d node(s); the real range may be larger", InferredPrefix, n), true
}

// covers reports whether outer contains all of inner.
func covers(outer, inner netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// Covers reports whether outer contains all of inner (both masked).
func Covers(outer, inner netip.Prefix) bool { return covers(outer.Masked(), inner.Masked()) }

func containsAll(p netip.Prefix, as []netip.Addr) bool {
	for _, a := range as {
		if !p.Contains(a) {
			return false
		}
	}
	return true
}

// Infer completes what c lacks from the API objects: the kube-dns ClusterIP from the
// Services, and lower bounds of the ranges (InferServiceCIDR, InferClusterCIDR). Values
// already set, read from configuration or written by hand, are kept.
func (c *Config) Infer(nodes []corev1.Node, svcs []corev1.Service) {
	if c.KubeDNS == "" {
		ip, src := KubeDNS(svcs)
		c.Set(KeyKubeDNS, ip, src)
	}
	if c.ServiceCIDR == "" {
		var kubernetesIP string
		var clusterIPs []string
		for _, s := range svcs {
			if s.Namespace == metav1.NamespaceDefault && s.Name == "kubernetes" {
				kubernetesIP = s.Spec.ClusterIP
			}
			clusterIPs = append(clusterIPs, s.Spec.ClusterIP)
		}
		if p, src, ok := InferServiceCIDR(kubernetesIP, clusterIPs); ok {
			c.Set(KeyServiceCIDR, p.String(), src)
		}
	}
	if c.ClusterCIDR == "" {
		var podCIDRs []string
		for _, n := range nodes {
			podCIDRs = append(podCIDRs, n.Spec.PodCIDR)
		}
		if p, src, ok := InferClusterCIDR(podCIDRs); ok {
			c.Set(KeyClusterCIDR, p.String(), src)
		}
	}
}

// KubeDNS finds the cluster DNS Service's ClusterIP and names the Service: kube-system/
// kube-dns (CoreDNS keeps that name), else a kube-system Service labelled k8s-app=kube-dns,
// else kube-system/coredns.
func KubeDNS(svcs []corev1.Service) (ip, source string) {
	for _, match := range []func(corev1.Service) bool{
		func(s corev1.Service) bool { return s.Name == "kube-dns" },
		func(s corev1.Service) bool { return s.Labels["k8s-app"] == "kube-dns" },
		func(s corev1.Service) bool { return s.Name == "coredns" },
	} {
		for _, s := range svcs {
			if s.Namespace == metav1.NamespaceSystem && match(s) && s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone {
				return s.Spec.ClusterIP, fmt.Sprintf("Service %s/%s: spec.clusterIP", s.Namespace, s.Name)
			}
		}
	}
	return "", ""
}
