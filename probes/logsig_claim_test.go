package probes

import (
	"strings"
	"testing"
)

// TestLogSignaturesClaimNoCitation: a signature line whose probe reads the same file is
// that probe's to judge; LOG-SIGNATURES cannot see whether it fails, so its pass names the
// probe and never says a finding cites the line.
func TestLogSignaturesClaimNoCitation(t *testing.T) {
	line := `E0308 10:14:40.118203    2904 kubelet_node_status.go:603] "Failed to set some node status fields" err="failed to validate nodeIP: node IP: \"10.0.0.9\" not found in the host's network interfaces" node="win-1"`
	f := clOne(t, logSignatures{}, "win-1", clEv(map[string]string{"nodes/win-1/kubelet.log": line + "\r\n"}), Pass, "for NODE-IP, which read the same file")
	if strings.Contains(f.Summary, "each cited by") {
		t.Errorf("claims a citation no finding is known to make: %s", f.Summary)
	}
}
