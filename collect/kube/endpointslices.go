package kube

import (
	"context"
	"sort"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// collectEndpointSlices stores every Service's EndpointSlices (discovery.k8s.io/v1, the
// API kube-proxy itself watches): SVC-LB-POLICY compares the DNS VIP's and each
// Service's HNS load balancers with the backends that are live. Denied (or an API the
// server lacks) leaves cluster/endpointslices.json.err and a Skipped entry.
func (c *Client) collectEndpointSlices(ctx context.Context, t *evidence.Tree, d *Discovery) error {
	items, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]discoveryv1.EndpointSlice, string, error) {
		l, err := c.cs.DiscoveryV1().EndpointSlices("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	err = c.fail(ctx, err, "list", "endpointslices", "", "")
	// The apiserver lists by namespace and name already; sorting again keeps the file
	// byte-identical across runs whatever the paging did.
	sort.Slice(items, func(i, j int) bool {
		if items[i].Namespace != items[j].Namespace {
			return items[i].Namespace < items[j].Namespace
		}
		return items[i].Name < items[j].Name
	})
	return c.optional(t, d, evidence.PathEndpointSlices, err, func() error {
		return c.put(t, evidence.PathEndpointSlices, "discovery.k8s.io/v1", "EndpointSlice", items)
	})
}
