package probes

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Every node's probes look themselves up in cluster/nodes.json and their pods up in
// cluster/pods.json, a dozen times a node. Scanning the lists each time made a node cost
// more the bigger the cluster (5,000 nodes, 15,000 pods: a quarter of analyze); these
// indexes are built once per run, kept in the evidence memo beside the decoded list (a
// Tree forgets both when the file changes), and used when the list handed in is that
// decoded list (the same backing array), else the list is scanned as before.

const (
	podsByNodeMemo  = "probes.podsByNode"
	nodesByNameMemo = "probes.nodesByName"
)

// podsBound is podsOn(pods, node) through the index of cluster/pods.json.
func podsBound(ev evidence.Evidence, pods []corev1.Pod, node string) []corev1.Pod {
	if !sameList(ev, evidence.Pods, pods) {
		return podsOn(pods, node)
	}
	idx := memoized(ev.Memo, evidence.PathPods, podsByNodeMemo, func() map[string][]corev1.Pod {
		m := map[string][]corev1.Pod{}
		for _, p := range pods {
			if p.Spec.NodeName != "" {
				m[p.Spec.NodeName] = append(m[p.Spec.NodeName], p)
			}
		}
		return m
	})
	// Clipped: a caller that appends gets its own array, never the index's.
	return slices.Clip(idx[node])
}

// findNode is decode.FindNode(nodes, name) through the index of cluster/nodes.json.
func findNode(ev evidence.Evidence, nodes []corev1.Node, name string) (corev1.Node, error) {
	if !sameList(ev, evidence.ClusterNodes, nodes) {
		return decode.FindNode(nodes, name)
	}
	idx := memoized(ev.Memo, evidence.PathNodes, nodesByNameMemo, func() map[string]int {
		m := make(map[string]int, len(nodes))
		for i, n := range nodes {
			if _, dup := m[n.Name]; !dup { // the first of a name, as FindNode finds it
				m[n.Name] = i
			}
		}
		return m
	})
	if i, ok := idx[name]; ok {
		return nodes[i], nil
	}
	return corev1.Node{}, fmt.Errorf("node %q is not in the cluster's node list", name)
}

// sameList says whether list is the memoized decoding of the cluster file of k.
func sameList[T any](ev evidence.Evidence, k evidence.Key[[]T], list []T) bool {
	if len(list) == 0 || ev.Memo == nil {
		return false
	}
	v, err := evidence.Get(ev, "", k)
	return err == nil && len(v) == len(list) && &v[0] == &list[0]
}
