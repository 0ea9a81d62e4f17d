package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// netMTU (NET-MTU): on an Overlay (VXLAN) network the pods' packets leave room for the
// encapsulation (FM-27). VXLAN adds 50 bytes (outer Ethernet 14, IP
// 20, UDP 8, VXLAN 8: flannel's vxlan backend subtracts encapOverhead = 50 from the
// uplink's MTU, flannel-io/flannel pkg/backend/vxlan). HNS gives process-isolated
// containers an MTU of 1450 by design (Azure/AKS#2873, microsoft/SDN#517), which fits a
// 1500-byte underlay exactly; an underlay below 1500 (an OpenStack tenant network, whose
// own VXLAN leaves VMs 1450; a VPN) drops or fragments the pods' full-size packets, and
// the symptom is the classic one: pings and small requests work, TLS handshakes and large
// responses hang (moby/moby#33596, Windows and Linux hosts on one overlay).
//
// The underlay is the physical adapter bound to the Hyper-V switch (it has no IP
// interface of its own, so its MtuSize from Get-NetAdapter is what counts); the pod-facing
// MTU is the largest NlMtu of the container compartments' interfaces, or HNS's 1450 when
// none was collected.
type netMTU struct{}

const (
	vxlanOverhead = 50
	hnsPodMTU     = 1450
)

func (netMTU) Spec() Spec {
	return Spec{ID: "NET-MTU", Title: "on Overlay the pods' MTU leaves 50 bytes for VXLAN on the uplink",
		FM: []string{"FM-27"}, Reads: []evidence.Ref{evidence.NetInterfaces, evidence.HNSNetworks}}
}

func (netMTU) Check(c C) Finding {
	nets, netPath, bad := need(c, evidence.HNSNetworks)
	if bad != nil {
		if bad.Status == Error && c.ev.CollectError(netPath) != "" {
			// Not collected: HNS-NETWORK reports why; the MTU cannot be judged without it.
			return c.Skip("hns-networks.json was not collected (HNS-NETWORK says why): whether the node is on Overlay is unknown", netPath)
		}
		return *bad
	}
	overlay, overlayAdapter := "", ""
	for _, n := range nets {
		if n.Kind() == "overlay" {
			overlay, overlayAdapter = string(n.Name), string(n.NetworkAdapterName)
			break
		}
	}
	if overlay == "" {
		return c.Pass("no Overlay HNS network: no VXLAN encapsulation to leave room for", netPath)
	}
	ifs, ifPath, bad := need(c, evidence.NetInterfaces)
	if bad != nil {
		return c.notCollected(ifPath, bad)
	}
	cites := []string{ifPath, netPath}
	under, underName := uplinkMTU(ifs, overlayAdapter)
	if under == 0 {
		return c.Skip("net-interfaces.json shows no physical adapter that is up: the underlay's MTU is unknown", cites...)
	}
	pod, podFrom := int64(0), ""
	for _, i := range ifs.IPInterfaces {
		if i.CompartmentId > 1 && i.Connected() && !pseudoInterface(i) && int64(i.NlMtu) > pod {
			pod, podFrom = int64(i.NlMtu), string(i.InterfaceAlias)
		}
	}
	assumed := ""
	if pod == 0 {
		pod, assumed = hnsPodMTU, " (no pod interface collected: HNS's default for containers)"
	}
	facts := fmt.Sprintf("overlay network %s; uplink %s MTU %d; pods' MTU %d%s", overlay, underName, under, pod, assumed)
	if podFrom != "" {
		facts += " (" + podFrom + ")"
	}
	if pod+vxlanOverhead > under {
		return c.Fail(fmt.Sprintf("pods' packets of %d bytes grow to %d with VXLAN, over the uplink's MTU %d", pod, pod+vxlanOverhead, under), cites...).
			With(facts, "full-size packets between pods on different nodes are dropped or fragmented: small requests work, large ones and TLS handshakes hang").
			WithFix(&Fix{ID: "raise-underlay-mtu", Title: "Give VXLAN its 50 bytes: raise the underlay MTU, or lower the pods'", Kind: Manual, Verify: c.id,
				Impact: "changing an adapter's MTU drops its link for a moment",
				Commands: []string{
					fmt.Sprintf("Get-NetAdapterAdvancedProperty -Name '%s' -RegistryKeyword '*JumboPacket'   # if the network allows it, raise it to %d or more", underName, pod+vxlanOverhead),
					fmt.Sprintf("otherwise set every pod network's MTU to %d or less (the CNI's MTU setting; Calico: VXLAN_MTU; flannel: the uplink's MTU minus 50)", under-vxlanOverhead),
				},
				Notes: []string{"Linux peers on the same VXLAN must use the same pod MTU (flannel writes it to /run/flannel/subnet.env)"}})
	}
	return c.Pass(fmt.Sprintf("pods' MTU %d + 50 bytes of VXLAN fits the uplink's %d", pod, under), cites...).With(facts)
}

// uplinkMTU is the MTU of the adapter the overlay sends its VXLAN packets through: the
// one its HNS network is bound to (NetworkAdapterName) when that adapter is listed, else
// the smallest of the physical adapters that are up (a second NIC on another network,
// storage or management, does not carry the overlay and does not count when the network
// names its own).
func uplinkMTU(ifs decode.NetInterfaces, adapter string) (int64, string) {
	under, name := int64(0), ""
	for _, a := range ifs.Adapters {
		if adapter != "" && strings.EqualFold(string(a.Name), adapter) && a.MtuSize > 0 {
			return int64(a.MtuSize), string(a.Name)
		}
	}
	for _, a := range ifs.Adapters {
		if a.Physical() && a.MtuSize > 0 && (under == 0 || int64(a.MtuSize) < under) {
			under, name = int64(a.MtuSize), string(a.Name)
		}
	}
	return under, name
}

// pseudoInterface: every network compartment has its own "Loopback Pseudo-Interface 1",
// whose NlMtu Windows reports as 4294967295 (0xFFFFFFFF, no limit): it carries no packet
// off the host and is not a pod NIC.
func pseudoInterface(i decode.NetInterface) bool {
	return int64(i.NlMtu) >= 0xFFFFFFFF || strings.HasPrefix(strings.ToLower(string(i.InterfaceAlias)), "loopback pseudo-interface")
}
