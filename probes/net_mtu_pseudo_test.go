package probes

import "testing"

// TestMTUPseudoInterfacesAndUplink: each pod compartment's "Loopback Pseudo-Interface 1"
// reports NlMtu 4294967295 and is no pod NIC; the uplink is the adapter the Overlay
// network is bound to, not a smaller second NIC (storage) that carries no VXLAN.
func TestMTUPseudoInterfacesAndUplink(t *testing.T) {
	files := map[string]string{
		"nodes/win-1/hns-networks.json": `[{"Name":"vxlan0","Type":"Overlay","NetworkAdapterName":"Ethernet"}]`,
		"nodes/win-1/net-interfaces.json": `{"IPInterfaces":[` +
			`{"InterfaceAlias":"vEthernet (Ethernet)","ifIndex":7,"NlMtu":1500,"CompartmentId":1,"ConnectionState":"Connected"},` +
			`{"InterfaceAlias":"vEthernet (3f1c_vxlan0)","ifIndex":31,"NlMtu":1450,"CompartmentId":2,"ConnectionState":"Connected"},` +
			`{"InterfaceAlias":"Loopback Pseudo-Interface 1","ifIndex":30,"NlMtu":4294967295,"CompartmentId":2,"ConnectionState":"Connected"}],` +
			`"Adapters":[{"Name":"Ethernet","ifIndex":4,"MtuSize":1500,"Virtual":false,"Status":"Up"},` +
			`{"Name":"Storage","ifIndex":5,"MtuSize":1400,"Virtual":false,"Status":"Up"}]}`,
	}
	clOne(t, netMTU{}, "win-1", clEv(files), Pass, "pods' MTU 1450 + 50 bytes of VXLAN fits the uplink's 1500", "uplink Ethernet")
}
