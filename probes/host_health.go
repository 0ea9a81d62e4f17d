package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Microsoft/hcsshim/osversion"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// knownBadBuilds (HOST-KNOWN-BUILD): the host's cumulative update is not one reported to
// break container networking or HNS. The table (known_bad_updates.go) holds only entries
// whose build numbers the sources state; a build outside it passes ("not known bad"), not
// "known good". Inside a range the verdict follows the layouts the reports name: a fail
// where the node's CNI is one of them, a warn elsewhere (the regression is real, but not
// reported with this layout, so the evidence does not say this node is broken).
type knownBadBuilds struct{}

func (knownBadBuilds) Spec() Spec {
	return Spec{ID: "HOST-KNOWN-BUILD", Title: "the host's cumulative update is not one reported to break container networking",
		FM: []string{"FM-22"}, Reads: []evidence.Ref{evidence.Host, evidence.CNIConfig, evidence.Processes, evidence.WindowsServices,
			evidence.HNSNetworks, evidence.Pods}} // pods: Calico's node pods tell the layout without a CNI config
}

func (knownBadBuilds) Check(c C) Finding {
	host, build, p, bad := hostBuild(c)
	if bad != nil {
		return *bad
	}
	ubr := int64(host.UBR)
	for _, b := range knownBadUpdates() {
		if b.Build == build && !host.Shown("UBR") {
			// The table has ranges of this build: the revision decides.
			return *c.hostNotShown(host, p, "UBR")
		}
		if b.Build != build || ubr < b.FirstUBR || ubr > b.LastUBR {
			continue
		}
		layout, src, named := c.reportedLayout(b)
		status, summary := Fail, fmt.Sprintf("build %s is in a range reported to break container networking", host.Version())
		if !named {
			status = Warn
			summary = fmt.Sprintf("build %s is in a range reported with %s; not reported with %s", host.Version(), strings.Join(b.Layouts, " and "), layout)
		}
		f := c.Judge(status, summary, p, src).
			With("reported: "+b.What, fmt.Sprintf("affected: %s (%d.%d) to %d.%d", b.KB, b.Build, b.FirstUBR, b.Build, b.LastUBR),
				fmt.Sprintf("fixed by: %s (%d.%d)%s", b.FixKB, b.Build, b.FixUBR, b.FixNote)).
			With(prefixAll("source: ", b.Sources)...)
		if !named {
			f = f.With("the reports name " + strings.Join(b.Layouts, " and ") + " only: on this node's layout the update is not known to break networking; install the fix at the next patch window")
		}
		return f.WithFix(updateHostFix(c, b))
	}
	return c.Pass(fmt.Sprintf("build %s is not in the table of updates known to break container networking", host.Version()), p)
}

// reportedLayout names the node's layout and says whether the reports of b name it.
func (c C) reportedLayout(b knownBadUpdate) (layout, source string, named bool) {
	src, calico := c.calicoNode()
	if calico {
		return "Calico", src, slices.Contains(b.Layouts, "Calico")
	}
	if cni, ok := optional(c, evidence.CNIConfig); ok {
		name := cni.Type
		if cni.Delegate != "" {
			name += " (" + cni.Delegate + ")"
		}
		return name, c.Path(evidence.CNIConfig), false
	}
	if name, src := c.kubeProxyNetwork(); name != "" {
		return "the network " + name, src, false
	}
	return "this node's CNI (not in the evidence)", "", false
}

func updateHostFix(c C, b knownBadUpdate) *Fix {
	return &Fix{ID: "update-host", Title: "Install the fixing cumulative update (drain, update, restart)", Kind: Manual,
		Verify: c.id, Disruptive: true, Impact: "the node's pods are evicted and the node restarts",
		Commands: []string{
			"kubectl drain " + c.node + " --ignore-daemonsets --delete-emptydir-data",
			fmt.Sprintf("install %s (%d.%d) or a later cumulative update, then Restart-Computer   # on the node", b.FixKB, b.Build, b.FixUBR),
			"kubectl uncordon " + c.node,
		},
		Notes: []string{"until then, uninstalling the breaking update restores networking (microsoft/Windows-Containers#516)"}}
}

// hostPrereq (HOST-PREREQ): the host can run Kubernetes' Windows containers at all
// (FM-22): its build is Windows Server 2019 (17763) or later, the oldest Windows the
// Kubernetes Windows node documentation supports ("Windows containers in Kubernetes",
// kubernetes.io: Windows Server 2019 and later; failure mode FM-22), and the Containers
// feature (the Host Compute Service every runtime calls) is Enabled: sig-windows-tools
// hostprocess/Install-Containerd.ps1 installs it (Install-WindowsFeature -Name
// Containers) and stops for a reboot before it installs containerd. host.json collected before the snippet read
// the feature lacks it: the build alone is judged then, never a failure for the gap.
type hostPrereq struct{}

// minBuild is Windows Server 2019's build (hcsshim's osversion.RS5 / LTSC2019).
const minBuild = osversion.LTSC2019

func (hostPrereq) Spec() Spec {
	return Spec{ID: "HOST-PREREQ", Title: "the host runs a Windows build its kubelet's Kubernetes release supports, with the Containers feature enabled",
		FM: []string{"FM-22"}, Reads: []evidence.Ref{evidence.Host, evidence.ClusterNodes}}
}

func (hostPrereq) Check(c C) Finding {
	host, build, p, bad := hostBuild(c)
	if bad != nil {
		return *bad
	}
	var problems []string
	minor, version := c.kubeletMinor()
	era := eraOf(minor)
	if build < era.minBuild {
		problems = append(problems, fmt.Sprintf("build %d (%s) is older than %s (%d), the oldest Windows %s supports as a node",
			build, decode.BuildName(build), era.name, era.minBuild, eraWords(minor, version)))
	}
	featureKnown := host.ContainersFeature != nil
	state := int64(decode.FeatureEnabled)
	if featureKnown {
		state = int64(*host.ContainersFeature)
	}
	if state != decode.FeatureEnabled {
		problems = append(problems, "the Containers feature is "+decode.FeatureStateName(state)+
			": without it the Host Compute Service, which containerd and Docker create every container through, is not there")
	}
	if len(problems) == 0 && !host.Shown("ContainersFeature") {
		// A pasted build: the feature's state decides and the paste did not show it.
		return *c.hostNotShown(host, p, "ContainersFeature")
	}
	if len(problems) == 0 {
		ok := fmt.Sprintf("build %s is %s or later", host.Version(), era.name)
		var why []string
		if era.minBuild < minBuild {
			ok += fmt.Sprintf(", which %s supports (from v1.14 Kubernetes supports Windows Server 2019 and later)", eraWords(minor, version))
			why = append(why, era.source)
		}
		f := c.Pass(ok+" and the Containers feature is Enabled", p)
		if !featureKnown {
			f = c.Pass(ok+"; the Containers feature was not collected (older host.json)", p).
				With("check it with: Get-CimInstance Win32_OptionalFeature -Filter \"Name='Containers'\" (InstallState 1 is Enabled)")
		}
		if len(why) > 0 {
			f = f.With(why...).Citing(evidence.PathNodes)
		}
		return f
	}
	f := c.Fail(problems[0], p).With(problems[1:]...)
	if build < era.minBuild {
		f = f.With(era.source)
		return f.WithFix(&Fix{ID: "replace-host", Title: "Rebuild the node on Windows Server 2019 or later", Kind: Manual, Verify: c.id,
			Disruptive: true, Impact: "the node is replaced",
			Commands: []string{"kubectl drain " + c.node + " --ignore-daemonsets --delete-emptydir-data",
				"kubectl delete node " + c.node + "   # then join a Windows Server 2019/2022/2025 host in its place"}})
	}
	return f.WithFix(&Fix{ID: "enable-containers-feature", Title: "Enable the Containers feature and restart the node", Kind: Manual, Verify: c.id,
		Disruptive: true, Impact: "the node restarts; its pods are evicted first",
		Commands: []string{
			"kubectl drain " + c.node + " --ignore-daemonsets --delete-emptydir-data",
			"Install-WindowsFeature -Name Containers; Restart-Computer   # on the node (Server)",
			"kubectl uncordon " + c.node,
		},
		Notes: []string{"on Windows 10/11: Enable-WindowsOptionalFeature -Online -FeatureName Containers -All, then restart",
			"an Absent feature needs its payload back first (Install-WindowsFeature -Source <install media>)",
			"sig-windows-tools hostprocess/Install-Containerd.ps1 installs the feature the same way, then asks for the reboot"}})
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// hostDisk (HOST-DISK): the system volume C: has room (FM-28). On Windows nodes the
// kubelet's root, containerd's root (C:\ProgramData\containerd) and Docker's
// (C:\ProgramData\docker) all default to C:, so it is the nodefs and the imagefs at once.
//
// Thresholds are the kubelet's own defaults ("Node-pressure Eviction",
// https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/):
// below 10% free (nodefs.available) the kubelet reports DiskPressure and evicts pods;
// below 15% (imagefs.available, and imageGCHighThresholdPercent 85) it garbage-collects
// images and evicts. The EKS log collector refuses to run below 30% free (failure mode
// FM-28), so a support bundle may not be collectable either. Memory, pagefile commit and
// ports are HOST-RESOURCES'; the image filesystem's use from resources.json (crictl
// imagefsinfo) is quoted here, since image and snapshot bloat is the usual filler.
type hostDisk struct{}

const (
	diskEvictPct = 10
	diskGCPct    = 15
	diskBundle   = 30
)

func (hostDisk) Spec() Spec {
	return Spec{ID: "HOST-DISK", Title: "the system volume has more free space than the kubelet's eviction thresholds",
		FM: []string{"FM-28"}, Reads: []evidence.Ref{evidence.Disk, evidence.Resources}}
}

func (hostDisk) Check(c C) Finding {
	disks, p, bad := need(c, evidence.Disk)
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
		cites := []string{p}
		if r, ok := optional(c, evidence.Resources); ok && r.ImageFSUsedBytes > 0 {
			used := int64(d.Size) - int64(d.FreeSpace)
			facts += fmt.Sprintf("; images and their snapshots take %.1f GiB (crictl imagefsinfo)", gib(int64(r.ImageFSUsedBytes)))
			if used > 0 && int64(r.ImageFSUsedBytes)*2 > used {
				facts += ", more than half of what is used"
			}
			cites = append(cites, c.Path(evidence.Resources))
		}
		switch {
		case pct < diskEvictPct:
			return c.Fail(facts, cites...).With(
				fmt.Sprintf("below the kubelet's nodefs.available<%d%% hard eviction threshold: the node reports DiskPressure and evicts pods", diskEvictPct)).WithFix(fix)
		case pct < diskGCPct:
			return c.Warn(facts, cites...).With(
				fmt.Sprintf("below the kubelet's imagefs.available<%d%% threshold: it garbage-collects images and evicts pods", diskGCPct)).WithFix(fix)
		case pct < diskBundle:
			return c.Pass(facts, cites...).With(fmt.Sprintf("below %d%%: the EKS log collector refuses to run", diskBundle))
		}
		return c.Pass(facts, cites...)
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
		Notes: []string{"lower the kubelet's imageGCHighThresholdPercent/imageGCLowThresholdPercent if images keep filling the disk (failure mode FM-28)"}}
}

// hostBuild reads host.json and its build number, or says why it cannot: the file's own
// finding, or a skip when CurrentBuild is unreadable.
func hostBuild(c C) (host decode.Host, build uint16, path string, bad *Finding) {
	host, path, bad = need(c, evidence.Host)
	if bad != nil {
		return host, 0, path, bad
	}
	build, err := host.Build()
	if err != nil {
		f := c.Skip(fmt.Sprintf("host.json has no readable CurrentBuild (%q)", host.CurrentBuild), path)
		return host, 0, path, &f
	}
	return host, build, path, nil
}
