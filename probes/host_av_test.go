package probes_test

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestHostAV: Debug-ContainerHost's registry failures and an active threat on the
// runtime's files fail with the commands to paste; a threat elsewhere warns; a cleaned
// threat, a node without Defender and a healthy layout pass, the last two saying what
// cannot be seen; evidence without defender.json skips.
func TestHostAV(t *testing.T) {
	const ka, an = "win-k8s-01", "winpool-7k2pq"
	f := judge(t, "HOST-AV", ka, mustLoad(t, "defender-threat-in-snapshot"))
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Kind != probes.Manual || !strings.Contains(f.Summary, `snapshots\27\Files\app\tools\nc64.exe`) ||
		!strings.Contains(f.Fix.Commands[0], "Get-MpThreatDetection -ThreatID 2147725234") {
		t.Errorf("threat in snapshot: %s %q %+v", f.Status, f.Summary, f.Fix)
	}
	f = judge(t, "HOST-AV", ka, edited(t, "defender-threat-in-snapshot", "defender.json",
		`C:\\ProgramData\\containerd\\root\\io.containerd.snapshotter.v1.windows\\snapshots\\27\\Files\\app\\tools\\nc64.exe`, `C:\\Users\\admin\\Downloads\\nc64.exe`))
	if f.Status != probes.Warn || f.Fix != nil {
		t.Errorf("threat outside the runtime: %s %q", f.Status, f.Summary)
	}
	f = judge(t, "HOST-AV", ka, edited(t, "defender-threat-in-snapshot", "defender.json", `"IsActive":  true`, `"IsActive":  false`))
	if f.Status != probes.Pass || !detailsHave(f, "no Microsoft source found asks container hosts for exclusions") {
		t.Errorf("cleaned threat: %s %q %v", f.Status, f.Summary, f.Details)
	}
	f = judge(t, "HOST-AV", an, mustLoad(t, "host-bitlocker-deny-write"))
	if f.Status != probes.Fail || f.Fix == nil || len(f.Fix.Commands) != 3 || !detailsHave(f, "FDVDenyWriteAccess is 1") ||
		!strings.Contains(f.Fix.Commands[0], "-Name VSmbDisableOplocks") {
		t.Errorf("bitlocker: %s %q %v %+v", f.Status, f.Summary, f.Details, f.Fix)
	}
	f = judge(t, "HOST-AV", an, edited(t, "host-bitlocker-deny-write", "defender.json",
		`"VSmbDisableOplocks":  1`, `"VSmbDisableOplocks":  0`, `"FDVDenyWriteAccess":  1`, `"FDVDenyWriteAccess":  0`,
		`"ZZValues":  [`, `"ZZValues":  [ "zzHcsTest=1"`))
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "zzHcsTest=1") || !strings.Contains(f.Fix.Commands[0], "-Name 'zzHcsTest'") {
		t.Errorf("zz value: %s %q %+v", f.Status, f.Summary, f.Fix)
	}
	f = judge(t, "HOST-AV", "win-rke2-01", mustLoad(t, "defender-absent"))
	if f.Status != probes.Pass || !detailsHave(f, "the Defender module is not on this node") || !detailsHave(f, "third-party antivirus products are not seen here") {
		t.Errorf("no Defender: %s %q %v", f.Status, f.Summary, f.Details)
	}
	f = judge(t, "HOST-AV", "akswin000000", mustLoad(t, "layout-aks-azure-cni"))
	if f.Status != probes.Pass || !detailsHave(f, `exclusions: C:\k\kubelet.err.log`) {
		t.Errorf("AKS: %s %q %v", f.Status, f.Summary, f.Details)
	}
	old := editedScenario(t, "layout-aks-azure-cni", func(path string, b []byte) []byte {
		if strings.HasSuffix(path, "/defender.json") {
			return nil
		}
		return b
	})
	if f := judge(t, "HOST-AV", "akswin000000", old); f.Status != probes.Skip {
		t.Errorf("without defender.json: %s %q", f.Status, f.Summary)
	}
}
