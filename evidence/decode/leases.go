package decode

import (
	"bytes"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// Leases reads cluster/node-leases.json (`kubectl get leases -n kube-node-lease -o json
// --show-managed-fields`).
func Leases(file string, b []byte) ([]coordinationv1.Lease, error) {
	return kubeList[coordinationv1.Lease](file, b, "Lease")
}

// LeaseClock is what a node Lease says of its kubelet's clock. The kubelet writes
// spec.renewTime from its own clock each renewal (k8s.io/component-helpers
// apimachinery/lease controller.go: RenewTime = clock.Now(), every 10 s); the API server
// stamps the managedFields entry of the same write with its clock (k8s.io/apimachinery
// managedfields: Time is updated when the manager changes a field it owns).
type LeaseClock struct {
	Renew   time.Time // the kubelet's clock at its last renewal
	Server  time.Time // the API server's clock at that write, to the second
	Manager string    // the field manager that wrote renewTime ("kubelet.exe", "kubelet")
}

// Skew is the node's clock minus the API server's. The server's time has whole seconds
// only, so a node in step reads 0 to 1 s ahead.
func (l LeaseClock) Skew() time.Duration { return l.Renew.Sub(l.Server) }

// NodeLeaseClock reads the Lease's renewTime and the managedFields time of the entry that
// owns it (the newest such entry); ok is false when either is missing (collected without
// --show-managed-fields, or an API server before managed fields, v1.18).
func NodeLeaseClock(l coordinationv1.Lease) (LeaseClock, bool) {
	if l.Spec.RenewTime == nil || l.Spec.RenewTime.IsZero() {
		return LeaseClock{}, false
	}
	var out LeaseClock
	for _, m := range l.ManagedFields {
		if m.Time == nil || m.FieldsV1 == nil || !bytes.Contains(m.FieldsV1.GetRawBytes(), []byte(`"f:renewTime"`)) {
			continue
		}
		if out.Server.IsZero() || m.Time.After(out.Server) {
			out.Server, out.Manager = m.Time.UTC(), m.Manager
		}
	}
	if out.Server.IsZero() {
		return LeaseClock{}, false
	}
	out.Renew = l.Spec.RenewTime.UTC()
	return out, true
}
