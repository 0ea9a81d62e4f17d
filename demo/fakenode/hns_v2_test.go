package fakenode

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// TestHNSv2ModuleAnswersSchemaV2: on a node whose Get-HnsNetwork is hns.v2.psm1's, the
// sweep gets the v1 schema only because it asks for -Version 1; a script that does not ask
// gets schema v2, which the decoder reads to the same networks.
func TestHNSv2ModuleAnswersSchemaV2(t *testing.T) {
	const v1 = `[{"ID":"1","Name":"cbr0","Type":"L2Bridge","NetworkAdapterName":"Ethernet0",` +
		`"Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}]`
	n := NewNode(NodeOptions{Scenario: fstest.MapFS{"nodes/win-1/hns-networks.json": {Data: []byte(v1)}},
		Node: "win-1", HNSModule: "hns.v2.psm1"})
	script, err := scripts.Sweep([]scripts.Call{{Name: "hns-networks.json"}})
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(s string) []byte {
		res, _, err := scripts.Split(n.Respond(context.Background(), scripts.CommandLine(), []byte(s)).Stdout)
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %+v", err, res)
		}
		return res[0].Stdout
	}
	if got := sweep(script); string(got) != v1 {
		t.Fatalf("asked for v1, got %s", got)
	}
	noV1 := strings.ReplaceAll(script, ":Version\"] = 1", ":Version\"] = 2")
	got := sweep(noV1)
	if !strings.Contains(string(got), `"IpAddressPrefix": "10.244.1.0/24"`) {
		t.Fatalf("not asked for v1, got %s", got)
	}
	ns, err := decode.DecodeHNSNetworks("hns-networks.json", got)
	if err != nil || len(ns) != 1 || ns[0].Prefixes()[0] != "10.244.1.0/24" || ns[0].NetworkAdapterName != "Ethernet0" {
		t.Fatalf("v2 decoded to %+v, %v", ns, err)
	}
}
