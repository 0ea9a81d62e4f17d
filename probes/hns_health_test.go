package probes_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func detailsHave(f probes.Finding, s string) bool {
	for _, d := range f.Details {
		if strings.Contains(d, s) {
			return true
		}
	}
	return false
}

// TestHNSHealthThresholds: hnsautomitigator's 200 warns, 1000 fails with the restart fix,
// a stopped HNS fails with the start fix.
func TestHNSHealthThresholds(t *testing.T) {
	const node = "winpool-7k2pq"
	if f := judge(t, "HNS-HEALTH", node, mustLoad(t, "hns-deadlocked")); f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != "fix-restart-hns" {
		t.Errorf("1184 threads: %s %q %+v", f.Status, f.Summary, f.Fix)
	}
	f := judge(t, "HNS-HEALTH", node, edited(t, "hns-deadlocked", "hns-health.json", `"Threads":  1184`, `"Threads":  250`))
	if f.Status != probes.Warn || !detailsHave(f, "endpointstats") {
		t.Errorf("250 threads: %s %q %v", f.Status, f.Summary, f.Details)
	}
	f = judge(t, "HNS-HEALTH", node, edited(t, "hns-deadlocked", "hns-health.json", `"Threads":  1184`, `"Threads":  199`))
	if f.Status != probes.Pass {
		t.Errorf("199 threads: %s %q", f.Status, f.Summary)
	}
	f = judge(t, "HNS-HEALTH", node, edited(t, "hns-deadlocked", "hns-health.json",
		`"State":  "Running"`, `"State":  "Stopped"`, `"ProcessId":  1904`, `"ProcessId":  0`, `"Threads":  1184`, `"Threads":  0`))
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != "fix-start-service" {
		t.Errorf("stopped: %s %q %+v", f.Status, f.Summary, f.Fix)
	}
	// A shared svchost never fails: the count is not HNS's alone.
	if f := judge(t, "HNS-HEALTH", "win-1", mustLoad(t, "hns-threads-shared-svchost")); f.Status != probes.Warn || f.Fix != nil || !detailsHave(f, "15 other service(s)") {
		t.Errorf("shared: %s %q %v", f.Status, f.Summary, f.Details)
	}
}

// TestVFPBlockedNamesThePod: the blocked port's pod is named, with networkhealth's
// resolution as the command to paste; a port vfpctrl could not read warns, never fails.
func TestVFPBlockedNamesThePod(t *testing.T) {
	f := judge(t, "HNS-VFP-PORTS", "win-1", mustLoad(t, "vfp-port-blocked"))
	if f.Status != probes.Fail || !detailsHave(f, "pod default/iis-7dfbf869d5-x2j9p") || !detailsHave(f, "10.200.2.10") {
		t.Fatalf("%s %q %v", f.Status, f.Summary, f.Details)
	}
	if f.Fix == nil || f.Fix.Kind != probes.Manual || len(f.Fix.Commands) != 1 || f.Fix.Commands[0] != "kubectl delete pod -n default iis-7dfbf869d5-x2j9p" {
		t.Errorf("fix %+v", f.Fix)
	}
	f = judge(t, "HNS-VFP-PORTS", "win-1", edited(t, "healthy-sdn-l2bridge-docker", "vfp-ports.json",
		`"Blocked":  false`, `"Blocked":  null`, `"Error":  ""`, `"Error":  "ERROR: failed to find the port"`))
	if f.Status != probes.Warn || !detailsHave(f, "ERROR: failed to find the port") {
		t.Errorf("unreadable: %s %q %v", f.Status, f.Summary, f.Details)
	}
	// Every port blocked, the host vNIC's too: networkhealth's resolution for that one is
	// to recreate the network.
	f = judge(t, "HNS-VFP-PORTS", "win-1", edited(t, "healthy-sdn-l2bridge-docker", "vfp-ports.json", `"Blocked":  false`, `"Blocked":  true`))
	if f.Status != probes.Fail || !detailsHave(f, "the node's own endpoint") || !detailsHave(f, "recreate the HNS network") {
		t.Errorf("host port: %s %q %v", f.Status, f.Summary, f.Details)
	}
	if f := judge(t, "HNS-VFP-PORTS", "win-1", mustLoad(t, "vfpctrl-missing")); f.Status != probes.Skip {
		t.Errorf("no vfpctrl: %s %q", f.Status, f.Summary)
	}
}

// TestAdapterHint: HNS-NETWORK names the NIC to pass as -InterfaceName only where the
// SDN scripts' pattern matches no adapter.
func TestAdapterHint(t *testing.T) {
	f := judge(t, "HNS-NETWORK", "win-1", mustLoad(t, "sdn-adapter-not-ethernet"))
	if f.Status != probes.Fail || !detailsHave(f, "pass -InterfaceName 'eth0'") || !detailsHave(f, "Failed to find a suitable network adapter") {
		t.Errorf("eth0: %s %q %v", f.Status, f.Summary, f.Details)
	}
	// vEthernet (Ethernet) is there: the network is missing for another reason.
	if f := judge(t, "HNS-NETWORK", "win-1", mustLoad(t, "waiting-for-network")); detailsHave(f, "-InterfaceName") {
		t.Errorf("waiting-for-network names an adapter: %v", f.Details)
	}
	// A NIC named Ethernet without a vSwitch yet is the name the scripts want: no hint.
	tree := editedScenario(t, "sdn-adapter-not-ethernet", func(path string, b []byte) []byte {
		if strings.HasSuffix(path, "/net-interfaces.json") || strings.HasSuffix(path, "/ip-addresses.json") {
			return []byte(strings.ReplaceAll(string(b), `"eth0"`, `"Ethernet"`))
		}
		return b
	})
	if f := judge(t, "HNS-NETWORK", "win-1", tree); detailsHave(f, "-InterfaceName") {
		t.Errorf("a NIC named Ethernet got a hint: %v", f.Details)
	}
}
