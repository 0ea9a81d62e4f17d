package probes

import (
	"fmt"

	"github.com/Microsoft/hcsshim/osversion"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// hostPrereq (HOST-PREREQ): the host can run Kubernetes' Windows containers at all
// (FM-22): its build is Windows Server 2019 (17763) or later, the oldest Windows the
// Kubernetes Windows node documentation supports ("Windows containers in Kubernetes",
// kubernetes.io: Windows Server 2019 and later; DOMAIN.md FM-22), and the Containers
// feature (the Host Compute Service every runtime calls) is Enabled: sig-windows-tools
// hostprocess/Install-Containerd.ps1 installs it (Install-WindowsFeature -Name
// Containers) and stops for a reboot before it installs containerd. host.json collected before the snippet read
// the feature lacks it: the build alone is judged then, never a failure for the gap.
type hostPrereq struct{}

// minBuild is Windows Server 2019's build (hcsshim's osversion.RS5 / LTSC2019).
const minBuild = osversion.LTSC2019

func (hostPrereq) Spec() Spec {
	return Spec{ID: "HOST-PREREQ", Title: "the host runs Windows Server 2019 or later with the Containers feature enabled",
		FM: []string{"FM-22"}, Reads: []evidence.Ref{evidence.Host()}}
}

func (hostPrereq) Check(c C) Finding {
	host, p, bad := need(c, evidence.Host())
	if bad != nil {
		return *bad
	}
	build, err := host.Build()
	if err != nil {
		return c.Skip(fmt.Sprintf("host.json has no readable CurrentBuild (%q)", host.CurrentBuild), p)
	}
	var problems []string
	if build < minBuild {
		problems = append(problems, fmt.Sprintf("build %d (%s) is older than Windows Server 2019 (%d), the oldest Windows Kubernetes supports as a node",
			build, decode.BuildName(build), minBuild))
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
	if len(problems) == 0 {
		if !featureKnown {
			return c.Pass(fmt.Sprintf("build %s is Windows Server 2019 or later; the Containers feature was not collected (older host.json)", host.Version()), p).
				With("check it with: Get-CimInstance Win32_OptionalFeature -Filter \"Name='Containers'\" (InstallState 1 is Enabled)")
		}
		return c.Pass(fmt.Sprintf("build %s is Windows Server 2019 or later and the Containers feature is Enabled", host.Version()), p)
	}
	f := c.Fail(problems[0], p).With(problems[1:]...)
	if build < minBuild {
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
