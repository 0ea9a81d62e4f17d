package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/kubectl/pkg/drain"
)

// PatchPodCIDR sets spec.podCIDR and spec.podCIDRs of a node whose podCIDR is empty, as
// `kubectl patch node N --type merge -p '{"spec":{"podCIDR":C,"podCIDRs":[C]}}'` would. It
// refuses when one is already set: the API allows only "" -> value, and the patch carries
// the resourceVersion it checked so a concurrent assignment (the IPAM controller) wins.
func (c *Client) PatchPodCIDR(ctx context.Context, node, cidr string) error {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return fmt.Errorf("setting the podCIDR of node %s: %q is not a CIDR", node, cidr)
	}
	if p.Masked() != p {
		return fmt.Errorf("setting the podCIDR of node %s: %s has host bits set (did you mean %s?)", node, cidr, p.Masked())
	}
	n, err := c.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return c.fail(ctx, err, "get", "nodes", "", node)
	}
	if n.Spec.PodCIDR != "" || len(n.Spec.PodCIDRs) > 0 {
		return fmt.Errorf("node %s already has podCIDR %q (podCIDRs %v): the API only allows setting it once, from empty; changing it means deleting the node and letting it re-register",
			node, n.Spec.PodCIDR, n.Spec.PodCIDRs)
	}
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": n.ResourceVersion},
		"spec":     map[string]any{"podCIDR": cidr, "podCIDRs": []string{cidr}},
	}
	return c.mergePatchNode(ctx, node, patch)
}

// Cordon marks a node unschedulable with kubectl's own cordon helper (kubectl cordon).
// Cordoning a cordoned node is a no-op.
func (c *Client) Cordon(ctx context.Context, node string) error {
	n, err := c.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return c.fail(ctx, err, "get", "nodes", "", node)
	}
	h := drain.NewCordonHelper(n)
	if !h.UpdateIfRequired(true) {
		return nil
	}
	err, patchErr := h.PatchOrReplaceWithContext(ctx, c.cs, false)
	verb := "patch"
	if patchErr != nil {
		verb = "update" // no patch could be built, so the helper replaced the node object
	}
	return c.fail(ctx, err, verb, "nodes", "", node)
}

// Taint adds a taint (kubectl taint nodes N key=value:effect). The same taint already
// present is a no-op; the key with this effect but another value is refused rather than
// overwritten, since something else put it there.
func (c *Client) Taint(ctx context.Context, node, key, value, effect string) error {
	e := corev1.TaintEffect(effect)
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return fmt.Errorf("tainting node %s: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", node, effect)
	}
	if key == "" {
		return fmt.Errorf("tainting node %s: empty taint key", node)
	}
	want := corev1.Taint{Key: key, Value: value, Effect: e}
	// Taints are a list the merge patch replaces whole, so read-modify-write, guarded by
	// the resourceVersion and retried if another writer got in between.
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return c.fail(ctx, err, "get", "nodes", "", node)
		}
		for _, t := range n.Spec.Taints {
			if t.Key == key && t.Effect == e {
				if t.Value == value {
					return nil
				}
				return fmt.Errorf("node %s already has the taint %s; remove it first with `kubectl taint nodes %s %s:%s-` if %s is what you want",
					node, t.ToString(), node, key, effect, want.ToString())
			}
		}
		patch := map[string]any{
			"metadata": map[string]any{"resourceVersion": n.ResourceVersion},
			"spec":     map[string]any{"taints": append(n.Spec.Taints, want)},
		}
		return c.mergePatchNode(ctx, node, patch)
	})
}

// DeleteNode deletes the Node object (pods bound to it are garbage-collected). On a managed
// node pool (Anthos, cluster-api) the machine is then recreated; elsewhere the kubelet
// re-registers the node when it restarts.
func (c *Client) DeleteNode(ctx context.Context, node string) error {
	err := c.cs.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})
	return c.fail(ctx, err, "delete", "nodes", "", node)
}

func (c *Client) mergePatchNode(ctx context.Context, node string, patch map[string]any) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encoding the patch for node %s: %w", node, err)
	}
	_, err = c.cs.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, b, metav1.PatchOptions{FieldManager: userAgent})
	return c.fail(ctx, err, "patch", "nodes", "", node)
}

// ParseSecretRef reads a --password-secret value, "namespace/name[:key]" or "name[:key]"
// (the namespace is then the client's default, -n).
func ParseSecretRef(ref string) (namespace, name, key string, err error) {
	rest, key, _ := strings.Cut(ref, ":")
	namespace, name, ok := strings.Cut(rest, "/")
	if !ok {
		namespace, name = "", rest
	}
	if name == "" || strings.Contains(name, "/") {
		return "", "", "", fmt.Errorf("--password-secret %q: want namespace/name[:key], e.g. my-user-cluster/windows-node-password", ref)
	}
	return namespace, name, key, nil
}

// Secret returns one value of a Secret, such as the Anthos `windows-node-password`. An empty
// namespace means the default one (-n); an empty key means the only key when there is just
// one, else "password". Errors list the keys present, never the values.
func (c *Client) Secret(ctx context.Context, namespace, name, key string) ([]byte, error) {
	if namespace == "" {
		namespace = c.namespace
	}
	s, err := c.cs.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the node password: %w", c.fail(ctx, err, "get", "secrets", namespace, name))
	}
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if key == "" {
		key = "password"
		if len(keys) == 1 {
			key = keys[0]
		}
	}
	v, ok := s.Data[key]
	if !ok {
		present := "none"
		if len(keys) > 0 {
			present = strings.Join(keys, ", ")
		}
		return nil, fmt.Errorf("secret %s/%s has no key %q; keys present: %s (choose one with --password-secret %s/%s:KEY)",
			namespace, name, key, present, namespace, name)
	}
	return v, nil
}
