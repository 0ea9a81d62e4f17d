package probes

import (
	"fmt"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// knownBadBuilds (HOST-KNOWN-BUILD): the host's cumulative update is not one reported to
// break container networking or HNS. The table holds only entries whose build numbers
// the sources state; a build outside it passes ("not known bad"), not "known good".
type knownBadBuilds struct{}

// badBuild is a range of update build revisions (UBR) of one Windows build that a
// source reports broken, and the first revision that fixes it.
type badBuild struct {
	build        uint16
	from, before int64 // UBR range [from, before)
	status       Status
	what         string
	fixed        string // the update to move to
	sources      []string
}

// badBuildTable is the sourced table. Each row's numbers come from the sources it cites.
func badBuildTable() []badBuild {
	return []badBuild{
		{build: 20348, from: 2582, before: 2762, status: Fail,
			what:  "Windows Server 2022 July 2024 update KB5040437 (20348.2582) and later ones until October 2024: pod networking breaks (no external reach, pods unreachable from pods and Services), seen with Calico VXLAN and on AKS",
			fixed: "KB5044281 (October 8, 2024, OS build 20348.2762), whose notes list \"Fixed: Container networking on Kubernetes might not work as you expect\"",
			sources: []string{"microsoft/Windows-Containers#516", "projectcalico/calico#8529 (comment of 2024-10-16 quoting KB5044281)",
				"projectcalico/calico#9019"}},
		{build: 20348, from: 2322, before: 2582, status: Warn,
			what:    "Windows Server 2022 20348.2322 (March 2024) and later: a Calico user reports lost pod connectivity that 20348.1970 (September 2023) did not have; Microsoft has not confirmed a regression in this range",
			fixed:   "KB5044281 (OS build 20348.2762) or later, which the same thread reports working",
			sources: []string{"projectcalico/calico#8529"}},
	}
}

func (knownBadBuilds) Spec() Spec {
	return Spec{ID: "HOST-KNOWN-BUILD", Title: "the host's cumulative update is not one reported to break container networking",
		FM: []string{"FM-22"}, Reads: []evidence.Ref{evidence.Host()}}
}

func (knownBadBuilds) Check(c C) Finding {
	host, p, bad := need(c, evidence.Host())
	if bad != nil {
		return *bad
	}
	build, err := host.Build()
	if err != nil {
		return c.Skip(fmt.Sprintf("host.json has no readable CurrentBuild (%q)", host.CurrentBuild), p)
	}
	ubr := int64(host.UBR)
	for _, b := range badBuildTable() {
		if b.build != build || ubr < b.from || ubr >= b.before {
			continue
		}
		return c.Judge(b.status, fmt.Sprintf("build %s is in a range reported to break container networking", host.Version()), p).
			With("reported: "+b.what, "fixed by: "+b.fixed).
			With(prefixAll("source: ", b.sources)...).
			WithFix(&Fix{ID: "update-host", Title: "Install the fixing cumulative update (drain, update, restart)", Kind: Manual,
				Verify: c.id, Disruptive: true, Impact: "the node's pods are evicted and the node restarts",
				Commands: []string{
					"kubectl drain " + c.node + " --ignore-daemonsets --delete-emptydir-data",
					"install " + b.fixed + " or a later cumulative update, then Restart-Computer   # on the node",
					"kubectl uncordon " + c.node,
				},
				Notes: []string{"until then, uninstalling the breaking update restores networking (microsoft/Windows-Containers#516)"}})
	}
	return c.Pass(fmt.Sprintf("build %s is not in the table of updates known to break container networking", host.Version()), p)
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}
