package probes

import (
	"fmt"
	"maps"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
)

// addrRange is one of the cluster's address ranges and where it came from.
type addrRange struct {
	prefix   netip.Prefix // IPv4 part; invalid when unknown
	source   string
	inferred bool // a lower bound guessed from addresses in use, not configuration
}

func (r addrRange) known() bool { return r.prefix.IsValid() }

// describe is "10.32.0.0/24 (ServiceCIDR kubernetes ...)".
func (r addrRange) describe() string {
	if r.source == "" {
		return r.prefix.String()
	}
	return fmt.Sprintf("%s (%s)", r.prefix, r.source)
}

// addressPlan is the cluster's address plan as far as the evidence shows it.
type addressPlan struct {
	service, cluster addrRange
	kubeDNS          string
	dnsSource        string
	cites            []string // the files it came from
}

// addressPlan reads cluster/cluster-config.json and completes it from the API objects
// (kube-dns from services.json, ranges inferred the way the collector infers them), so a
// hand-assembled bundle without cluster-config.json is judged the same.
func (c C) addressPlan() addressPlan {
	var p addressPlan
	cfg, err := evidence.Get(c.ev, c.node, evidence.ClusterConfig)
	if err == nil {
		p.cites = append(p.cites, evidence.PathClusterConfig)
	}
	c.swallow(evidence.PathClusterConfig, err)
	svcs, svcErr := evidence.Get(c.ev, c.node, evidence.ClusterServices)
	nodes, nodeErr := evidence.Get(c.ev, c.node, evidence.ClusterNodes)
	nodes = shownNodes(nodes)
	c.swallow(evidence.PathServices, svcErr)
	c.swallow(evidence.PathNodes, nodeErr)
	// Decoded evidence is shared by every probe of a run: complete a copy.
	cfg.Sources = maps.Clone(cfg.Sources)
	// The kube-dns Service itself outranks a copy of its IP.
	if ip, src := clusterconfig.KubeDNS(svcs); svcErr == nil && ip != "" {
		cfg.Set(clusterconfig.KeyKubeDNS, ip, src)
		p.cites = append(p.cites, evidence.PathServices)
	}
	if svcErr == nil || nodeErr == nil {
		cfg.Infer(nodes, svcs)
	}
	p.kubeDNS, p.dnsSource = cfg.KubeDNS, cfg.Sources[clusterconfig.KeyKubeDNS]
	if p.dnsSource == "" && p.kubeDNS != "" {
		p.dnsSource = evidence.PathClusterConfig
	}
	rng := func(key, v string) addrRange {
		pfx, ok := clusterconfig.IPv4(v)
		if !ok {
			return addrRange{}
		}
		src := cfg.Sources[key]
		if src == "" {
			src = evidence.PathClusterConfig
		}
		return addrRange{prefix: pfx, source: src, inferred: cfg.Inferred(key)}
	}
	p.service = rng(clusterconfig.KeyServiceCIDR, cfg.ServiceCIDR)
	p.cluster = rng(clusterconfig.KeyClusterCIDR, cfg.ClusterCIDR)
	return p
}

// podCIDRInCluster judges a node's podCIDR against the cluster CIDR, when the cluster
// states one (an inferred range proves nothing here: it is built from the podCIDRs). It
// returns nil when there is nothing to say.
func (c C) podCIDRInCluster() *Finding {
	_, self, bad := c.clusterNodes()
	if bad != nil || self.Spec.PodCIDR == "" {
		return nil
	}
	plan := c.addressPlan()
	pod, ok := prefix(self.Spec.PodCIDR)
	if !ok || !plan.cluster.known() || plan.cluster.inferred {
		return nil
	}
	if clusterconfig.Covers(plan.cluster.prefix, pod) {
		return nil
	}
	f := c.Fail(fmt.Sprintf("podCIDR %s is outside the cluster CIDR %s", pod, plan.cluster.prefix),
		evidence.PathNodes, evidence.PathClusterConfig).
		With("expected: a podCIDR inside "+plan.cluster.describe(),
			"actual: "+self.Spec.PodCIDR+" (node spec.podCIDR)",
			"pods here get addresses the rest of the cluster treats as external: kube-proxy masquerades them and the CNI ExceptionList does not cover them")
	return &f
}

// podsOn returns the pods bound to node in cluster/pods.json.
func podsOn(pods []corev1.Pod, node string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

// eventsAbout returns the events whose involvedObject is the pod.
func eventsAbout(evs []corev1.Event, p corev1.Pod) []corev1.Event {
	var out []corev1.Event
	for _, e := range evs {
		o := e.InvolvedObject
		if o.Kind == "Pod" && o.Namespace == p.Namespace && o.Name == p.Name && (o.UID == "" || o.UID == p.UID) {
			out = append(out, e)
		}
	}
	return out
}

func podID(p corev1.Pod) string { return p.Namespace + "/" + p.Name }
