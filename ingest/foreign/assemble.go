package foreign

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// assemble places every recognized bundle in one evidence tree: the cluster side first
// (a cluster dump's files over what a node bundle's kubectl output gave), then each node
// bundle under the node the cluster knows it as.
func assemble(res *Result, found []*mapped, opt Options) error {
	sort.SliceStable(found, func(i, j int) bool { return isCluster(found[i]) && !isCluster(found[j]) })
	haveDump := false
	for _, m := range found {
		if !isCluster(m) {
			continue
		}
		haveDump = true
		for p, b := range m.cluster {
			if _, ok := res.Files[p]; !ok {
				res.Files[p] = b
			}
		}
	}
	var nodes []corev1.Node
	for _, m := range found {
		if isCluster(m) {
			continue
		}
		for p, b := range m.cluster { // kubectl describe in an AKS zip: only where no dump said more
			if _, ok := res.Files[p]; !ok {
				res.Files[p] = b
				m.b.Evidence = append(m.b.Evidence, p)
			}
		}
	}
	if b, ok := res.Files[evidence.PathNodes]; ok {
		nodes, _ = decode.Nodes(evidence.PathNodes, b)
	}
	for _, m := range found {
		if isCluster(m) {
			m.b.Gaps = clusterGaps(res.Files)
			res.Bundles = append(res.Bundles, m.b)
			continue
		}
		if err := placeNode(res, m, nodes, opt.Node); err != nil {
			return err
		}
		if !haveDump {
			m.b.Gaps = append(m.b.Gaps, clusterGaps(res.Files)...)
		}
		res.Bundles = append(res.Bundles, m.b)
	}
	return nil
}

func isCluster(m *mapped) bool { return m.isDump }

// placeNode names the node a bundle came from and writes its files there.
func placeNode(res *Result, m *mapped, nodes []corev1.Node, fallback string) error {
	name, from := resolveNode(m, nodes)
	if name == "" && fallback != "" {
		name, from = fallback, "--node"
	}
	if name == "" {
		return fmt.Errorf("the %s bundle in %s does not say which node it is from: give the node's name (--node)", m.b.Collector, m.b.Source)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("the %s bundle in %s names its node %q (%s), which is no Kubernetes node name: %s; give the node's name (--node)",
			m.b.Collector, m.b.Source, name, from, strings.Join(errs, "; "))
	}
	m.b.Node, m.b.NodeFrom = name, from
	var filled []string
	for f, b := range m.node {
		p := evidence.NodeFile(name, f)
		if _, ok := res.Files[p]; ok {
			m.b.Notes = append(m.b.Notes, p+" came from an earlier bundle of the same node; this one's is not used")
			continue
		}
		res.Files[p] = b
		filled = append(filled, f)
	}
	m.b.Evidence = m.b.Evidence[:0]
	for p := range m.cluster {
		if _, ok := res.Files[p]; ok {
			m.b.Evidence = append(m.b.Evidence, p)
		}
	}
	for _, f := range filled {
		m.b.Evidence = append(m.b.Evidence, evidence.NodeFile(name, f))
	}
	sort.Strings(m.b.Evidence)
	for _, k := range evidence.NodeKeys(false) {
		meta := k.Meta()
		if meta.OS != "" {
			continue
		}
		if _, ok := res.Files[evidence.NodeFile(name, meta.Name)]; !ok {
			m.b.Gaps = append(m.b.Gaps, Gap{Path: evidence.NodeFile(name, meta.Name), Collect: meta.Command})
		}
	}
	return nil
}

// resolveNode finds the bundle's node in the cluster: by name or hostname label first,
// by address then; without a cluster dump, its own host name.
func resolveNode(m *mapped, nodes []corev1.Node) (string, string) {
	for _, h := range m.hosts {
		for _, n := range nodes {
			if strings.EqualFold(n.Name, h) || strings.EqualFold(n.Labels["kubernetes.io/hostname"], h) {
				return n.Name, fmt.Sprintf("the cluster's node named %s (%s)", h, m.b.NodeFrom)
			}
		}
	}
	for _, ip := range m.ips {
		for _, n := range nodes {
			for _, a := range n.Status.Addresses {
				if a.Address == ip && (a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP) {
					return n.Name, "the cluster's node with address " + ip
				}
			}
		}
	}
	if len(m.hosts) > 0 {
		return m.hosts[0], m.b.NodeFrom
	}
	return "", ""
}

// clusterGaps are the cluster files the input lacks, and what to collect.
func clusterGaps(files map[string][]byte) []Gap {
	var out []Gap
	for _, k := range evidence.All() {
		meta := k.Meta()
		if meta.Scope != evidence.Cluster {
			continue
		}
		if _, ok := files[meta.Name]; !ok {
			out = append(out, Gap{Path: meta.Name, Collect: meta.Command + " (or give `kubectl cluster-info dump --all-namespaces --output-directory DIR` next to the node bundle)"})
		}
	}
	return out
}
