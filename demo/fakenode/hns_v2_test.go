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

// TestRemoveHNSEndpointsAsksV1: on an hns.v2.psm1-only node the endpoint fix removes the
// listed endpoint only because it asks for the v1 schema (through Use-WtsHns, as the
// snippets do); a fix that does not ask skips every endpoint, as it would on the node.
func TestRemoveHNSEndpointsAsksV1(t *testing.T) {
	scenario := fstest.MapFS{
		"nodes/win-1/hns-endpoints.json":                                {Data: []byte(`[{"ID":"E1","IPAddress":"10.244.1.5"}]`)},
		"after/fix-remove-hns-endpoints/nodes/win-1/hns-endpoints.json": {Data: []byte(`[]`)},
	}
	params := map[string]any{"Id": []string{"E1"}, "IPAddress": []string{"10.244.1.5"}}
	script, err := scripts.Sweep([]scripts.Call{{Name: "fix-remove-hns-endpoints", Params: params}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(s string) (*Node, string) {
		n := NewNode(NodeOptions{Scenario: scenario, Node: "win-1", HNSModule: "hns.v2.psm1"})
		res, _, err := scripts.Split(n.Respond(context.Background(), scripts.CommandLine(), []byte(s)).Stdout)
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %+v", err, res)
		}
		return n, string(res[0].Stdout)
	}
	if n, out := run(script); len(n.Applied()) != 1 || strings.Contains(out, "skipped") {
		t.Fatalf("the fix as shipped: applied %v, printed %q", n.Applied(), out)
	}
	body, err := scripts.Body("fix-remove-hns-endpoints")
	if err != nil {
		t.Fatal(err)
	}
	noV1 := strings.Replace(script, body, strings.ReplaceAll(body, "Use-WtsHns", "Get-Command"), 1)
	if n, out := run(noV1); len(n.Applied()) != 0 || !strings.Contains(out, "skipped E1: its address is now , not 10.244.1.5") {
		t.Fatalf("a fix not asking for v1: applied %v, printed %q", n.Applied(), out)
	}
}
