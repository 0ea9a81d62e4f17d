package probes

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// linuxVXLAN (LINUX-VXLAN): on a flannel VXLAN cluster with Windows nodes the Linux side
// must use VNI 4096 and UDP port 4789, the only values Windows' overlay networking
// accepted when flannel gained Windows support (microsoft/SDN
// Kubernetes/flannel/overlay/README.md: "Ensure that Flannel on Linux has VNI 4096 set
// and port 4789"; kubernetes.io "Adding Windows nodes": "The VNI must be set to 4096 and
// port 4789 for Flannel on Linux to interoperate with Flannel on Windows"). Linux
// flannel's defaults are VNI 1 and the kernel's port 8472, so a stock kube-flannel.yml
// builds a tunnel Windows never answers. The device's MTU must also leave room for the
// 50-byte VXLAN header on its underlay, and match what flanneld hands the pods
// (subnet.env FLANNEL_MTU).
type linuxVXLAN struct{}

// The overlay settings Windows requires of flannel's VXLAN backend, and its overhead.
const (
	windowsVNI   = 4096
	windowsVXLAN = 4789
	vxlanHeader  = 50 // outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8
)

func (linuxVXLAN) Spec() Spec {
	return Spec{ID: "LINUX-VXLAN", OS: evidence.Linux, Title: "VXLAN settings a Linux worker shares with the Windows nodes (VNI, port, MTU)", FM: []string{"FM-07"},
		Reads: []evidence.Ref{evidence.LinuxLinks, evidence.LinuxFlannelSubnet, evidence.ClusterNodes}}
}

func hasWindowsNode(nodes []corev1.Node) bool {
	for _, n := range nodes {
		if decode.IsWindows(n) {
			return true
		}
	}
	return false
}

func (linuxVXLAN) Check(c C) Finding {
	links, linkPath, bad := need(c, evidence.LinuxLinks)
	if bad != nil {
		return *bad
	}
	var vx []decode.IPLink
	for _, l := range links {
		if l.Kind() == "vxlan" {
			vx = append(vx, l)
		}
	}
	if len(vx) == 0 {
		return c.Skip("no VXLAN device: pods are routed without an overlay (LINUX-ROUTES judges the routes)", linkPath)
	}
	nodes, _, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	if !hasWindowsNode(nodes) {
		return c.Skip("no Windows node in the cluster: any VNI and port work between Linux nodes", linkPath, evidence.PathNodes)
	}
	cites := []string{linkPath, evidence.PathNodes}
	var problems, fine []string
	for _, l := range vx {
		info, _ := l.VXLAN()
		if info.ID != windowsVNI {
			problems = append(problems, fmt.Sprintf("%s: VNI %d, Windows nodes need %d", l.IfName, info.ID, windowsVNI))
		}
		if info.Port != windowsVXLAN {
			problems = append(problems, fmt.Sprintf("%s: UDP port %d, Windows nodes need %d", l.IfName, info.Port, windowsVXLAN))
		}
		if under, ok := linkNamed(links, info.Dev); ok && l.MTU+vxlanHeader > under.MTU {
			problems = append(problems, fmt.Sprintf("%s: MTU %d leaves no room for the %d-byte VXLAN header on %s (MTU %d): at most %d",
				l.IfName, l.MTU, vxlanHeader, under.IfName, under.MTU, under.MTU-vxlanHeader))
		}
		fine = append(fine, fmt.Sprintf("%s: VNI %d, port %d, MTU %d", l.IfName, info.ID, info.Port, l.MTU))
		if env, ok := optional(c, evidence.LinuxFlannelSubnet); ok {
			cites = append(cites, c.Path(evidence.LinuxFlannelSubnet))
			if env.MTU != 0 && env.MTU != l.MTU {
				problems = append(problems, fmt.Sprintf("%s: MTU %d, but flanneld gives pods FLANNEL_MTU=%d (subnet.env)", l.IfName, l.MTU, env.MTU))
			}
		}
	}
	if len(problems) == 0 {
		return c.Pass("VXLAN matches what Windows nodes need: "+strings.Join(fine, "; "), cites...).
			With("the Windows side's MTU is not collected: flannel on Windows sets it from the same net-conf.json")
	}
	return c.Fail("VXLAN settings Windows nodes cannot talk to", cites...).With(problems...).
		With("pods on Windows nodes and pods here cannot reach each other across the tunnel").
		WithFix(&Fix{ID: "flannel-vxlan-windows", Title: "Set flannel's VXLAN backend to VNI 4096, port 4789", Kind: Manual, Verify: c.id,
			Commands: []string{
				`kubectl -n kube-flannel edit configmap kube-flannel-cfg   # net-conf.json: "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}`,
				"kubectl -n kube-flannel rollout restart daemonset kube-flannel-ds",
				"ip link delete " + vx[0].IfName + "   # on each Linux node, so flanneld recreates it with the new VNI",
			},
			Notes: []string{"microsoft/SDN Kubernetes/flannel/overlay/README.md and kube-flannel-example.yml (VNI 4096, Port 4789)",
				"older clusters keep the ConfigMap in kube-system"}})
}

func linkNamed(links []decode.IPLink, name string) (decode.IPLink, bool) {
	for _, l := range links {
		if l.IfName == name {
			return l, true
		}
	}
	return decode.IPLink{}, false
}
