package probes

import (
	"strings"
	"testing"
)

// TestPortsHeldInTimeWait: when the largest holder of dynamic ports is pid 0 ("Idle", the
// TIME_WAIT connections), the finding says so and the fix never says to restart Idle: it
// names where the connections went and TcpTimedWaitDelay.
func TestPortsHeldInTimeWait(t *testing.T) {
	res := `{"DynamicPortStart":49152,"DynamicPortCount":16384,"DynamicPortsInUse":14200,"ExcludedPorts":256,"TCPConnections":14650,` +
		`"TopOwners":[{"ProcessId":0,"Name":"Idle","Count":13100},{"ProcessId":4120,"Name":"kube-proxy","Count":420}]}`
	f := clOne(t, hostResources{}, "win-1", clEv(map[string]string{"nodes/win-1/resources.json": res}), Warn, "13100 in TIME_WAIT (pid 0", "kube-proxy (pid 4120) 420")
	if f.Fix == nil {
		t.Fatal("no fix")
	}
	all := strings.Join(append(append([]string{}, f.Fix.Commands...), f.Fix.Notes...), "\n")
	if strings.Contains(all, "restart or fix Idle") || !strings.Contains(all, "TcpTimedWaitDelay") || !strings.Contains(all, "-State TimeWait") {
		t.Errorf("fix for TIME_WAIT ports:\n%s", all)
	}
}
