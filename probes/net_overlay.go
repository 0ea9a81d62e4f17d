package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// netOverlay (NET-OVERLAY): the prerequisites of Windows' VXLAN overlay hold (FM-27).
//   - Windows Server 2019 needs KB4489899 for overlay networking (kubernetes/website
//     "Adding Windows nodes": "If you are using VXLAN/Overlay networking you must have
//     also have KB4489899 installed"). That is build 17763.379 (Microsoft's docs: "Windows
//     10, version 1809 (OS Build 17763.379 with KB4489899)"); every later cumulative
//     update contains it, so the UBR is compared, not the hotfix list.
//   - The VNI is 4096 or more: flannel refuses less on Windows (pkg/backend/vxlan
//     vxlan_windows.go "VNI [%v] must be greater than or equal to 4096 on Windows") and
//     skips peers' leases below it, and Calico's install-calico.ps1 checks the same; the
//     docs ask 4096 on every node (kubernetes/website, microsoft/SDN flannel/overlay).
//     Each peer's RemoteSubnetRoute carries the VNI its lease announced; one that differs
//     from the node's own is a tunnel neither end decapsulates.
//   - UDP port 4789: flannel on Windows accepts no other ("Port [%v] is not supported on
//     Windows"); a VxlanPort policy with another port is a network both sides disagree on.
//   - The firewall: microsoft/SDN helper.psm1 CreateExternalNetwork, Calico's
//     node-service.ps1 and rke2's createHnsNetwork open UDP 4789 (OverlayTraffic4789UDP);
//     sig-windows-tools' flannel opens nothing and its overlay works with the firewall on,
//     so a missing allow rule is not judged a failure. A block rule that covers UDP 4789
//     is: it is an administrator's or a GPO's statement that VXLAN is to be dropped.
//
// The vSwitch's placeholder network (External, VSID 9999) is not the pods' and is skipped.
// LINUX-VXLAN judges the Linux peers' side.
type netOverlay struct{}

const (
	ws2019Build     = "17763"
	kb4489899UBR    = 379
	windowsMinVNI   = 4096
	windowsVXLANUDP = 4789
)

func (netOverlay) Spec() Spec {
	return Spec{ID: "NET-OVERLAY", Layouts: allLayouts(), Title: "Overlay prerequisites: WS2019 at KB4489899 or later, VNI 4096+, one VNI with the peers, UDP 4789 not blocked",
		FM: []string{"FM-27"}, Reads: []evidence.Ref{evidence.HNSNetworks, evidence.Host, evidence.Firewall, evidence.IPAddresses}}
}

func (netOverlay) Check(c C) Finding {
	nets, netPath, bad := need(c, evidence.HNSNetworks)
	if bad != nil {
		if bad.Status == Error && c.ev.CollectError(netPath) != "" {
			return c.Skip("hns-networks.json was not collected (HNS-NETWORK says why): whether the node is on Overlay is unknown", netPath)
		}
		return *bad
	}
	var overlays []decode.HNSNetwork
	for _, n := range nets {
		if n.Kind() == "overlay" && !n.VSwitchAnchor() {
			overlays = append(overlays, n)
		}
	}
	if len(overlays) == 0 {
		return c.Pass("no Overlay HNS network (besides the vSwitch's placeholder): VXLAN's prerequisites do not apply", netPath)
	}
	j := &overlayJudgement{c: c, cites: []string{netPath}}
	j.hostBuild()
	for _, n := range overlays {
		j.network(n)
	}
	j.firewall(overlays[0])
	return j.verdict()
}

// overlayJudgement gathers NET-OVERLAY's steps: what fails, what holds, what could not
// be read, and the fixes for what fails.
type overlayJudgement struct {
	c                       C
	cites                   []string
	problems, facts, unread []string
	ubrUnknown              bool
	fixes                   []*Fix
}

func (j *overlayJudgement) fail(problem string, fix *Fix) {
	j.problems = append(j.problems, problem)
	j.fixes = append(j.fixes, fix)
}

// hostBuild: Windows Server 2019 needs KB4489899 (17763.379) for overlay networking.
func (j *overlayJudgement) hostBuild() {
	c := j.c
	host, ok := optional(c, evidence.Host)
	if !ok {
		j.facts = append(j.facts, "host.json not available: the KB4489899 check is not made")
		return
	}
	j.cites = append(j.cites, c.Path(evidence.Host))
	build := strings.TrimSpace(string(host.CurrentBuild))
	switch {
	case build == ws2019Build && !host.Shown("UBR"):
		j.ubrUnknown = true
	case build == ws2019Build && int64(host.UBR) < kb4489899UBR:
		j.fail(fmt.Sprintf("Windows Server 2019 build %s.%d is older than 17763.%d (KB4489899), which overlay networking needs", build, host.UBR, kb4489899UBR), kbFix(c.id))
	case build != "":
		j.facts = append(j.facts, fmt.Sprintf("build %s.%d (KB4489899 applies to 17763 below .%d only)", build, host.UBR, kb4489899UBR))
	}
}

// network: the VNI (Windows needs 4096 or more, the same as the peers') and the VXLAN port.
func (j *overlayJudgement) network(n decode.HNSNetwork) {
	name := string(n.Name)
	own := n.VNIs()
	if len(own) == 0 {
		j.unread = append(j.unread, name)
	}
	for _, v := range own {
		if v < windowsMinVNI {
			j.fail(fmt.Sprintf("%s: VNI %d, Windows needs %d or more (4096 on every node, as flannel and Calico set it)", name, v, windowsMinVNI), vniFix(j.c.id))
		}
	}
	if len(own) > 0 {
		var off []string
		for _, pv := range n.PeerVNIs() {
			if !slices.Contains(own, pv) {
				off = append(off, fmt.Sprint(pv))
			}
		}
		if len(off) > 0 {
			j.fail(fmt.Sprintf("%s: VNI %d here, but peers' remote subnet routes carry VNI %s: packets to and from those nodes are dropped", name, own[0], strings.Join(uniq(off), ", ")), vniFix(j.c.id))
		}
		j.facts = append(j.facts, fmt.Sprintf("%s: VNI %d, %d peer route(s)", name, own[0], len(n.PeerVNIs())))
	}
	if port := n.VXLANPort(); port != 0 && port != windowsVXLANUDP {
		j.fail(fmt.Sprintf("%s: VXLAN on UDP %d, flannel on Windows and its Linux peers' Windows setting use %d", name, port, windowsVXLANUDP), vniFix(j.c.id))
	}
}

// firewall: VXLAN arrives at the provider address, the overlay network's management IP.
func (j *overlayJudgement) firewall(overlay decode.HNSNetwork) {
	c := j.c
	fw, ok := optional(c, evidence.Firewall)
	if !ok {
		j.facts = append(j.facts, "firewall.json not available: UDP 4789 is not judged")
		return
	}
	j.cites = append(j.cites, c.Path(evidence.Firewall))
	alias, more := c.interfaceOf(string(overlay.ManagementIP))
	j.cites = append(j.cites, more...)
	v := judgePort(fw, "UDP", windowsVXLANUDP, "", alias)
	switch {
	case len(v.blockers) > 0:
		j.fail("UDP 4789 (VXLAN) inbound: "+strings.Join(v.closed, "; "), unblockFix(c.id, v.blockers, "UDP 4789"))
	case len(v.closed) > 0:
		j.facts = append(j.facts, "no rule allows UDP 4789 ("+strings.Join(v.closed, "; ")+"): not judged a failure, sig-windows-tools' flannel overlay runs so; the SDN and Calico scripts add OverlayTraffic4789UDP")
	default:
		j.facts = append(j.facts, "UDP 4789 inbound: "+strings.Join(v.open, "; "))
	}
}

func (j *overlayJudgement) verdict() Finding {
	c, cites := j.c, j.cites
	if len(j.problems) == 0 && len(j.unread) > 0 {
		// A pasted list view or a shallow dump drops the subnets' policies: the VNI, the
		// check people most often get wrong, cannot be read, so nothing is claimed.
		return c.Skip("the VNI of "+strings.Join(j.unread, ", ")+" is not in hns-networks.json (no VSID subnet policy: a pasted list view or a shallow ConvertTo-Json)", cites...).
			With(j.facts...).With("collect again: Get-HnsNetwork | ConvertTo-Json -Depth 8")
	}
	if len(j.problems) == 0 && j.ubrUnknown {
		// A pasted build without its revision: KB4489899 decides and is unknown.
		return c.Skip("build 17763's update revision (UBR) is not shown: KB4489899 (17763.379), which overlay networking needs, is not checked", cites...).
			With(j.facts...).With("re-collect with: " + hostFieldCommands([]string{"UBR"}))
	}
	if len(j.problems) == 0 {
		return c.Pass("Overlay prerequisites hold: "+strings.Join(j.facts, "; "), cites...)
	}
	f := c.Fail(j.problems[0], cites...).With(j.problems[1:]...).With(j.facts...).
		With("pods on this node cannot reach pods on other nodes over the overlay")
	return f.WithFix(j.fixes[0])
}

func uniq(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

func kbFix(verify string) *Fix {
	return &Fix{ID: "install-cumulative-update", Title: "Install a Windows Server 2019 cumulative update from March 2019 (KB4489899, 17763.379) or later",
		Kind: Manual, Verify: verify, Impact: "the update needs a reboot: drain the node first",
		Commands: []string{
			"kubectl drain <node> --ignore-daemonsets --delete-emptydir-data",
			"Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion' | Select CurrentBuild, UBR   # now",
			"install the latest 2019 cumulative update (Windows Update, or its .msu from the Microsoft Update Catalog: wusa.exe <file>.msu /quiet /norestart), then Restart-Computer",
		},
		Notes: []string{"the images' build must still match the host's (IMG-PAUSE-BUILD, POD-IMAGE-BUILD): a cumulative update keeps 17763"}}
}

func vniFix(verify string) *Fix {
	return &Fix{ID: "overlay-vni-4096", Title: "Use VXLAN VNI 4096 and UDP 4789 on every node", Kind: Manual, Verify: verify,
		Commands: []string{
			`kubectl -n kube-flannel edit configmap kube-flannel-cfg   # net-conf.json: "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}`,
			"restart flanneld on every node (Windows: Restart-Service flanneld, or delete the flannel pod); Calico: VXLAN_VNI=4096 in config.ps1",
		},
		Notes: []string{"kubernetes/website \"Adding Windows nodes\": the VNI must be 4096 and the port 4789 for flannel on Linux to interoperate with flannel on Windows"}}
}
