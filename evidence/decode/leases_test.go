package decode

import (
	"testing"
	"time"
)

// TestNodeLeaseClock: the newest managedFields entry owning renewTime gives the API
// server's time; a Lease listed without managed fields, or never renewed, gives none.
func TestNodeLeaseClock(t *testing.T) {
	doc := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
	"metadata":{"name":"win-1","namespace":"kube-node-lease","managedFields":[
	  {"manager":"kube-controller-manager","operation":"Update","time":"2024-01-01T09:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}}},
	  {"manager":"kubelet.exe","operation":"Update","time":"2024-01-01T10:07:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:renewTime":{}}}}]},
	"spec":{"holderIdentity":"win-1","renewTime":"2024-01-01T10:00:00.250000Z"}},
	{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"win-2"},"spec":{"renewTime":"2024-01-01T10:00:00.000000Z"}},
	{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"win-3"},"spec":{}}]}`
	ls, err := Leases("cluster/node-leases.json", []byte(doc))
	if err != nil || len(ls) != 3 {
		t.Fatalf("%v %d", err, len(ls))
	}
	lc, ok := NodeLeaseClock(ls[0])
	if !ok || lc.Manager != "kubelet.exe" || lc.Skew() != -(6*time.Minute+59*time.Second+750*time.Millisecond) {
		t.Fatalf("win-1: %v %+v %v", ok, lc, lc.Skew())
	}
	for _, l := range ls[1:] {
		if _, ok := NodeLeaseClock(l); ok {
			t.Errorf("%s: a clock without managed fields or renewTime", l.Name)
		}
	}
	if _, err := Leases("f", []byte(`{"kind":"Node"}`)); err == nil {
		t.Error("a Node accepted as a Lease list")
	}
}

// FuzzLeases: no input makes the Lease decoder or the clock reading panic.
func FuzzLeases(f *testing.F) {
	f.Add([]byte(`{"kind":"List","items":[{"kind":"Lease","metadata":{"name":"a","managedFields":[{"time":"2024-01-01T00:00:00Z","fieldsV1":{"f:spec":{"f:renewTime":{}}}}]},"spec":{"renewTime":"2024-01-01T00:00:00.000000Z"}}]}`))
	f.Add([]byte(`{"kind":"Lease","metadata":{"name":"a"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := Leases("f", b)
		if err != nil {
			return
		}
		for _, l := range ls {
			if lc, ok := NodeLeaseClock(l); ok && (lc.Server.IsZero() || lc.Renew.IsZero()) {
				t.Fatalf("a clock without both times: %+v", lc)
			}
		}
	})
}
