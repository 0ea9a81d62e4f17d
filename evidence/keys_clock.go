package evidence

import (
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// PathNodeLeases is where the kubelets' node Leases are stored, with their managed fields
// (issue 29, FM-35). Evidence collected before this version lacks it (and a user without
// the RBAC to list leases has its .err); CLOCK-SKEW then skips.
const PathNodeLeases = "cluster/node-leases.json"

// NodeLeases is cluster/node-leases.json.
var NodeLeases Key[[]coordinationv1.Lease] = ClusterKey(PathNodeLeases, decode.Leases, Meta{
	Command: "`kubectl get leases -n kube-node-lease -o json --show-managed-fields`",
	Format:  "List of coordination.k8s.io/v1 Lease: `spec.holderIdentity`, `spec.renewTime` (the kubelet's clock), `metadata.managedFields[]` (`manager`, `operation`, `time`: the API server's clock at that write). Without --show-managed-fields the skew cannot be told",
})
