package engine

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// MemCluster carries Kubernetes-side fixes out on in-memory cluster evidence (the
// demo's), so a newcomer can watch a podCIDR patch or a drain verify without a cluster.
// Live runs use collect/kube against the real API. Its drain only cordons: the
// in-memory cluster has no pods to evict.
type MemCluster struct {
	Tree *evidence.Tree
}

var _ KubeActions = (*MemCluster)(nil)

func (k *MemCluster) edit(node string, change func(*corev1.Node) error) error {
	b, err := k.Tree.Evidence().Read(evidence.PathNodes)
	if err != nil {
		return fmt.Errorf("reading the in-memory cluster: %w", err)
	}
	nodes, err := decode.Nodes(evidence.PathNodes, b)
	if err != nil {
		return err
	}
	found := false
	var keep []corev1.Node
	for i := range nodes {
		if nodes[i].Name == node {
			found = true
			if err := change(&nodes[i]); err != nil {
				return err
			}
			if nodes[i].Name == "" { // deleted
				continue
			}
		}
		keep = append(keep, nodes[i])
	}
	if !found {
		return fmt.Errorf("nodes %q not found", node)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": keep, "metadata": map[string]string{"resourceVersion": ""}}
	out, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	k.Tree.Put(evidence.PathNodes, out)
	return nil
}

func (k *MemCluster) PatchPodCIDR(_ context.Context, node, cidr string) error {
	return k.edit(node, func(n *corev1.Node) error {
		if n.Spec.PodCIDR != "" {
			return fmt.Errorf("node %s already has podCIDR %s: the API allows setting it only once", node, n.Spec.PodCIDR)
		}
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, []string{cidr}
		return nil
	})
}

func (k *MemCluster) Cordon(_ context.Context, node string) error {
	return k.edit(node, func(n *corev1.Node) error { n.Spec.Unschedulable = true; return nil })
}

// PlanDrain: the demo's evidence holds no pods the in-memory cluster could move.
func (k *MemCluster) PlanDrain(context.Context, string, kube.DrainOptions) (kube.DrainPlan, error) {
	return kube.DrainPlan{Notes: []string{"demo cluster: no pods are moved, the node is only cordoned"}}, nil
}

func (k *MemCluster) Drain(ctx context.Context, node string, o kube.DrainOptions) (kube.DrainResult, error) {
	plan, _ := k.PlanDrain(ctx, node, o)
	return kube.DrainResult{Plan: plan}, k.Cordon(ctx, node)
}

func (k *MemCluster) DeleteNode(_ context.Context, node string) error {
	return k.edit(node, func(n *corev1.Node) error { n.Name = ""; return nil })
}

func (k *MemCluster) Taint(_ context.Context, node, key, value, effect string) error {
	return k.edit(node, func(n *corev1.Node) error {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffect(effect)})
		return nil
	})
}
