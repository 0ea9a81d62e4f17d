package probes

// knownBadUpdate is one Windows cumulative update reported to break container networking
// or HNS: the revisions (UBR) of one build it spans, the update that fixes it, the node
// layouts (CNIs) the reports name, and the reports. HOST-KNOWN-BUILD fails a node in the
// range whose layout a report names and warns on any other (known_bad_updates_test.go
// holds every row to a source, a non-empty range and a fix after it).
type knownBadUpdate struct {
	KB                string // the first breaking update
	Build             uint16 // Windows build (20348: Windows Server 2022)
	FirstUBR, LastUBR int64  // affected revisions, inclusive: the breaking update and those before the fix
	FixKB             string
	FixUBR            int64
	FixNote           string   // what the fix's release notes say, quoted
	Layouts           []string // the layouts (CNIs) the reports name; empty: every layout
	What              string
	Sources           []string
}

// knownBadUpdates is the table. A row needs a confirmed regression and the build numbers
// its sources state: a single unconfirmed report (projectcalico/calico#8529 on 20348.2322)
// would warn on every node of those months, which is crying wolf.
//
// Searched and left out, for want of build numbers, of a fixing build or of Kubernetes
// (issue threads of microsoft/Windows-Containers, projectcalico/calico,
// kubernetes/kubernetes, kubernetes/website, Azure/AKS, moby): Windows-Containers#61
// (WS2019's August "8C" and September "9B" 2020 updates drop the DECAP_IN VFP layer when
// HNS restarts, fixed "in the cumulative update being released in 3rd week of October":
// no build numbers stated); kubernetes/website#31759 and Windows-Containers#204 (WS2022
// NodePort on overlay, and pod-to-pod on L2Bridge with WinDSR from KB5005619: no fixing
// build stated); moby/moby#40998 (WS2019 KB4550969, 17763.1192, breaks Docker Swarm's
// routing mesh, not Kubernetes, and no fixing build given); Windows-Containers#616 (WS2025
// HNS ACL policies, still open) and #140 (WS2025 26100.2605 NAT networks with
// docker-compose, no fixing build); Windows-Containers#322 (Windows 11 22621, not a
// server build).
func knownBadUpdates() []knownBadUpdate {
	return []knownBadUpdate{
		{KB: "KB5040437", Build: 20348, FirstUBR: 2582, LastUBR: 2761, FixKB: "KB5044281", FixUBR: 2762,
			FixNote: `, whose notes list "Fixed: Container networking on Kubernetes might not work as you expect ... It might affect you when you use Calico to set up container networking"`,
			Layouts: []string{"Calico"},
			What:    "Windows Server 2022 July 2024 update KB5040437 (20348.2582) and the updates after it until October 2024: pods reach no external address (ping: General failure) and are unreachable from other pods and through Services, reported with Calico VXLAN and BGP, on kubeadm and EKS nodes",
			Sources: []string{"microsoft/Windows-Containers#516 (Calico VXLAN, containerd 1.6.31; uninstalling KB5040437 fixes it)",
				"projectcalico/calico#9019 (Calico 3.28.0 VXLAN, Kubernetes 1.27.15)",
				"projectcalico/calico#9043 (EKS with Calico VXLAN: the 2024.07.10 EKS-optimized AMI breaks pod networking, the 2024.06.17 one works)",
				"projectcalico/calico#8529 (comment of 2024-10-16: resolved by KB5044281, quoting its notes)"}},
	}
}
