package decode

import (
	"bytes"
	"encoding/json"
	"strings"
)

// VXLAN settings an Overlay HNS network carries, in both schemas Get-HnsNetwork prints:
//   - a subnet's VSID policy: v1 {"Type": "VSID", "VSID": 4096} (microsoft/SDN
//     helper.psm1 New-HNSNetwork -SubnetPolicies, rancher/rke2 pkg/windows/utils.go),
//     v2 {"Type": "VSID", "Settings": {"IsolationId": 4096}} (hns.v2.psm1, flannel
//     pkg/backend/vxlan/device_windows.go hcn.VsidPolicySetting);
//   - a RemoteSubnetRoute network policy, one per peer node, whose IsolationId is the VNI
//     the peer's flannel lease announces (flannel vxlan_network_windows.go), v1 flat, v2
//     under Settings;
//   - a VxlanPort network policy {"Type": "VxlanPort", "Settings": {"Port": N}}, present
//     only when the network was created with another port (hns.v2.psm1 -VxlanPort); HNS
//     uses 4789 otherwise.
type overlayPolicy struct {
	IsolationID int64 // RemoteSubnetRoute's VNI; 0 when absent
	Port        int64 // VxlanPort's UDP port; 0 when absent
}

// readOverlayPolicy reads IsolationId and Port from a policy object, flat (v1) or under
// Settings (v2). Anything else leaves them 0.
func readOverlayPolicy(b, settings []byte) overlayPolicy {
	var flat struct {
		IsolationId, Port, VxlanPort Int
	}
	_ = json.Unmarshal(b, &flat)
	var set struct{ IsolationId, Port Int }
	if len(settings) > 0 {
		_ = json.Unmarshal(settings, &set)
	}
	o := overlayPolicy{IsolationID: int64(flat.IsolationId), Port: int64(flat.Port)}
	if o.Port == 0 {
		o.Port = int64(flat.VxlanPort)
	}
	if set.IsolationId != 0 {
		o.IsolationID = int64(set.IsolationId)
	}
	if set.Port != 0 {
		o.Port = int64(set.Port)
	}
	return o
}

// subnetVSIDs reads the VNIs of a subnet's VSID policies; other shapes (a string from a
// shallow ConvertTo-Json, other policy types) give none.
func subnetVSIDs(raw json.RawMessage) []int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' && raw[0] != '{' {
		return nil
	}
	var ps List[json.RawMessage]
	if json.Unmarshal(raw, &ps) != nil {
		return nil
	}
	var out []int64
	for _, p := range ps {
		var v struct {
			Type     Str
			VSID     Int
			Settings struct{ IsolationId Int }
		}
		if json.Unmarshal(p, &v) != nil || !strings.EqualFold(string(v.Type), "VSID") {
			continue
		}
		switch {
		case v.VSID != 0:
			out = append(out, int64(v.VSID))
		case v.Settings.IsolationId != 0:
			out = append(out, int64(v.Settings.IsolationId))
		}
	}
	return out
}

// VNIs are the VXLAN network identifiers of the network's own subnets.
func (n HNSNetwork) VNIs() []int64 {
	var out []int64
	for _, s := range n.Subnets {
		out = append(out, s.VSIDs...)
	}
	return out
}

// PeerVNIs are the VNIs of the network's RemoteSubnetRoute policies, by destination prefix
// order as HNS lists them.
func (n HNSNetwork) PeerVNIs() []int64 {
	var out []int64
	for _, p := range n.Policies {
		if strings.EqualFold(p.Type, "RemoteSubnetRoute") && p.IsolationID != 0 {
			out = append(out, p.IsolationID)
		}
	}
	return out
}

// VXLANPort is the UDP port of the network's VxlanPort policy, 0 when it has none (HNS's
// default, 4789).
func (n HNSNetwork) VXLANPort() int64 {
	for _, p := range n.Policies {
		if strings.EqualFold(p.Type, "VxlanPort") && p.Port != 0 {
			return p.Port
		}
	}
	return 0
}

// VSwitchAnchor says whether the network is the placeholder the setup scripts create only
// to bring up the Hyper-V switch before the CNI's own network: named External, on
// 192.168.255.0/30 with VSID 9999 (microsoft/SDN helper.psm1 CreateExternalNetwork,
// Calico node-service.ps1, rancher/rke2 createHnsNetwork). Its VNI is not the pods'.
func (n HNSNetwork) VSwitchAnchor() bool {
	return strings.EqualFold(string(n.Name), "External")
}
