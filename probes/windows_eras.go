package probes

import (
	"fmt"

	"github.com/Microsoft/hcsshim/osversion"
)

// windowsEra is the oldest Windows build a range of Kubernetes releases supports as a
// node, as that release's own documentation says. A node is judged by the release its
// kubelet runs, not by today's floor: a v1.12 cluster on Windows Server version 1803 was
// supported when it was set up, and nothing on it is broken for that.
type windowsEra struct {
	fromMinor int // the first Kubernetes 1.x minor of the era
	minBuild  uint16
	name      string
	source    string
}

// windowsEras, oldest first. Each later era starts where the docs changed the floor.
func windowsEras() []windowsEra {
	return []windowsEra{
		{fromMinor: 5, minBuild: osversion.LTSC2016, name: "Windows Server 2016",
			source: "kubernetes/website getting-started-guides/windows (v1.5-v1.8): \"Kubernetes version 1.5 introduced Alpha support for Windows Server Containers based on the Windows Server 2016 operating system\""},
		{fromMinor: 9, minBuild: osversion.RS3, name: "Windows Server version 1709",
			source: "kubernetes/website getting-started-guides/windows (v1.9, beta): \"With the release of Windows Server version 1709 and using Kubernetes v1.9 users are able to deploy a Kubernetes cluster\"; the v1.10-v1.13 pages recommend 1803+"},
		{fromMinor: 14, minBuild: osversion.LTSC2019, name: "Windows Server 2019",
			source: "kubernetes/website intro-windows-in-kubernetes.md \"Windows OS Version Support\" (v1.14 GA onward): Windows Server 2019 (LTSC) and Windows Server ver 1809 or later SAC releases; today's page: Windows Server 2019 and later"},
	}
}

// eraOf is the era of Kubernetes 1.minor (today's when the minor is unknown, 0).
func eraOf(minor int) windowsEra {
	eras := windowsEras()
	e := eras[len(eras)-1]
	if minor <= 0 {
		return e
	}
	for _, x := range eras {
		if minor >= x.fromMinor {
			e = x
		}
	}
	if minor < eras[0].fromMinor {
		e = eras[0]
	}
	return e
}

// eraWords says which release set the floor: "v1.12's" or, unknown, "today's".
func eraWords(minor int, version string) string {
	if minor <= 0 {
		return "today's Kubernetes (the kubelet's version is not in the evidence)"
	}
	return fmt.Sprintf("the kubelet's release %s", version)
}
