package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// collectNodeLeases stores the kubelets' Leases in kube-node-lease with their managed
// fields: each kubelet renews its Lease every 10 seconds, writing renewTime from the
// node's clock, while the API server stamps the same write's managedFields time from its
// own; CLOCK-SKEW reads the node's clock against the API server's from the two. Denied
// leaves cluster/node-leases.json.err and a Skipped entry.
func (c *Client) collectNodeLeases(ctx context.Context, t *evidence.Tree, d *Discovery) error {
	items, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]coordinationv1.Lease, string, error) {
		l, err := c.cs.CoordinationV1().Leases(corev1NamespaceNodeLease).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	err = c.fail(ctx, err, "list", "leases", corev1NamespaceNodeLease, "")
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return c.optional(t, d, evidence.PathNodeLeases, err, func() error {
		b, err := kubectlListManaged("coordination.k8s.io/v1", "Lease", items)
		if err != nil {
			return fmt.Errorf("writing %s: %w", evidence.PathNodeLeases, err)
		}
		t.Put(evidence.PathNodeLeases, b)
		t.Delete(evidence.PathNodeLeases + evidence.ErrSuffix)
		return nil
	})
}

// corev1NamespaceNodeLease is where kubelets keep their Leases (KEP-589).
const corev1NamespaceNodeLease = "kube-node-lease"

// kubectlListManaged renders items as `kubectl get ... -o json --show-managed-fields`
// prints a list: KubectlList's layout with managedFields kept, since their times are the
// API server's clock.
func kubectlListManaged(apiVersion, kind string, items any) ([]byte, error) {
	raw, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("encoding %s items: %w", kind, err)
	}
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&objs); err != nil {
		return nil, fmt.Errorf("re-reading %s items: %w", kind, err)
	}
	list := make([]any, 0, len(objs))
	for _, o := range objs {
		o["apiVersion"], o["kind"] = apiVersion, kind
		list = append(list, o)
	}
	doc := map[string]any{"apiVersion": "v1", "kind": "List", "items": list, "metadata": map[string]any{"resourceVersion": ""}}
	b, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("encoding %s list: %w", kind, err)
	}
	return append(b, '\n'), nil
}
