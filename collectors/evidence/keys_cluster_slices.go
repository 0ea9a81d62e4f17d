package evidence

import (
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// PathEndpointSlices is where the Services' EndpointSlices are stored. Evidence collected
// before this version lacks it (and a user without the RBAC to list them has its .err);
// SVC-LB-POLICY then falls back to the pods it has.
const PathEndpointSlices = "cluster/endpointslices.json"

// EndpointSlices is cluster/endpointslices.json: the live backends kube-proxy balances over.
func EndpointSlices() Key[[]discoveryv1.EndpointSlice] {
	return ClusterKey(PathEndpointSlices, decode.EndpointSlices, Meta{
		Command: "`kubectl get endpointslices -A -o json`",
		Format:  "List of discovery.k8s.io/v1 EndpointSlice (`metadata.labels[\"kubernetes.io/service-name\"]`, `endpoints[].addresses`, `endpoints[].conditions.ready`)",
	})
}
