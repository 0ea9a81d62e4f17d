package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// hostDisk (HOST-DISK): the system volume C: has room (FM-28). On Windows nodes the
// kubelet's root, containerd's root (C:\ProgramData\containerd) and Docker's
// (C:\ProgramData\docker) all default to C:, so it is the nodefs and the imagefs at once.
//
// Thresholds are the kubelet's own defaults ("Node-pressure Eviction",
// https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/):
// below 10% free (nodefs.available) the kubelet reports DiskPressure and evicts pods;
// below 15% (imagefs.available, and imageGCHighThresholdPercent 85) it garbage-collects
// images and evicts. The EKS log collector refuses to run below 30% free (DOMAIN.md
// FM-28), so a support bundle may not be collectable either. Memory and pagefile commit are not judged: host.json does not
// carry them.
type hostDisk struct{}

const (
	diskEvictPct = 10
	diskGCPct    = 15
	diskBundle   = 30
)

func (hostDisk) Spec() Spec {
	return Spec{ID: "HOST-DISK", Title: "the system volume has more free space than the kubelet's eviction thresholds",
		FM: []string{"FM-28"}, Reads: []evidence.Ref{evidence.Disk()}}
}

func (hostDisk) Check(c C) Finding {
	disks, p, bad := need(c, evidence.Disk())
	if bad != nil {
		return c.notCollected(p, bad)
	}
	for _, d := range disks {
		if !strings.EqualFold(string(d.DeviceID), "C:") {
			continue
		}
		if d.Size <= 0 {
			return c.Skip("disk.json has no size for C:", p)
		}
		pct := float64(d.FreeSpace) * 100 / float64(d.Size)
		facts := fmt.Sprintf("C: %.1f GiB free of %.1f GiB (%.0f%%)", gib(int64(d.FreeSpace)), gib(int64(d.Size)), pct)
		fix := diskFix(c.id)
		switch {
		case pct < diskEvictPct:
			return c.Fail(facts, p).With(
				fmt.Sprintf("below the kubelet's nodefs.available<%d%% hard eviction threshold: the node reports DiskPressure and evicts pods", diskEvictPct)).WithFix(fix)
		case pct < diskGCPct:
			return c.Warn(facts, p).With(
				fmt.Sprintf("below the kubelet's imagefs.available<%d%% threshold: it garbage-collects images and evicts pods", diskGCPct)).WithFix(fix)
		case pct < diskBundle:
			return c.Pass(facts, p).With(fmt.Sprintf("below %d%%: the EKS log collector refuses to run", diskBundle))
		}
		return c.Pass(facts, p)
	}
	return c.Skip("disk.json has no C: drive", p)
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }

func diskFix(verify string) *Fix {
	return &Fix{ID: "free-disk", Title: "Free space on C: (unused images, crash dumps, old logs)", Kind: Manual, Verify: verify,
		Commands: []string{
			"crictl rmi --prune   # containerd; docker image prune -a on Docker nodes (both list what they remove)",
			"Remove-Item C:\\Windows\\Minidump\\*, C:\\ProgramData\\Microsoft\\Windows\\WER\\ReportArchive\\* -Recurse   # crash dumps and reports",
		},
		Notes: []string{"lower the kubelet's imageGCHighThresholdPercent/imageGCLowThresholdPercent if images keep filling the disk (DOMAIN.md FM-28)"}}
}
