package decode

import "testing"

func FuzzFirewallDecoders(f *testing.F) {
	f.Add([]byte(`{"Profiles":[{"Name":"Public","Enabled":1,"DefaultInboundAction":4}],"Rules":{"Name":"k","Action":2,"Profile":"Domain, Public","Protocol":"TCP","LocalPort":"10000-10999"}}`))
	f.Add([]byte(`[{"Name":"vxlan0","Type":"Overlay","Subnets":[{"Policies":[{"Type":"VSID","VSID":4096}]}],"Policies":[{"Type":"VxlanPort","Settings":{"Port":4789}}]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if fw, err := DecodeFirewall("f", b); err == nil {
			for _, r := range fw.Rules {
				_ = r.Matches("TCP", 10250) || r.Matches("UDP", 4789)
				_ = r.Profiles()
			}
		}
		if ns, err := DecodeHNSNetworks("f", b); err == nil {
			for _, n := range ns {
				_, _, _ = n.VNIs(), n.PeerVNIs(), n.VXLANPort()
			}
		}
	})
}
