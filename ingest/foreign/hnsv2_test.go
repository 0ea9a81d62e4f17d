package foreign_test

import (
	"context"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/foreign"
)

// TestSchemaV2Dumps: collectlogs.ps1's default since 2022-09 dumps HNS in schema v2 (HCN
// objects, microsoft/hcsshim hcn/hcnendpoint.go and hcn/hcnloadbalancer.go); endpoints
// and load balancers are read into our v1 shape.
func TestSchemaV2Dumps(t *testing.T) {
	fs := scenarioBundle(t)
	fs["endpoint.txt"] = ps51("\nIpAddress MacAddress IsRemoteEndpoint State\n--------- ---------- ---------------- -----\n\n" +
		`[{"ID":"a1b2c3d4-0000-4000-8000-000000000001","Name":"pod1_eth0","HostComputeNetwork":"6e6d5f3a-0c4b-4f4e-9a44-0c3b1a2e7d11",` +
		`"IpConfigurations":[{"IpAddress":"10.200.2.5","PrefixLength":24}],"MacAddress":"00-15-5D-00-00-01","Flags":0,"SchemaVersion":{"Major":2,"Minor":0}},` +
		`{"ID":"a1b2c3d4-0000-4000-8000-000000000002","HostComputeNetwork":"6e6d5f3a-0c4b-4f4e-9a44-0c3b1a2e7d11",` +
		`"IpConfigurations":[{"IpAddress":"10.200.1.7"}],"Flags":1}]` + "\n")
	fs["policy.txt"] = ps51(`{"ID":"f00dbabe-0000-4000-8000-000000000003","HostComputeEndpoints":["a1b2c3d4-0000-4000-8000-000000000001"],` +
		`"SourceVIP":"10.200.2.2","FrontendVIPs":["10.32.0.10"],"PortMappings":[{"Protocol":17,"InternalPort":53,"ExternalPort":53},{"Protocol":6,"InternalPort":53,"ExternalPort":53}]}` + "\n")
	res, err := foreign.Open(context.Background(), []string{folder(t, t.TempDir(), fs)}, foreign.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := evidence.HNSEndpoints.Decode("e", res.Files[evidence.NodeFile("win-1", evidence.FileHNSEndpoints)])
	if err != nil || len(eps) != 2 {
		t.Fatalf("endpoints: %v %v", eps, err)
	}
	if eps[0].IPAddress != "10.200.2.5" || eps[0].IsRemoteEndpoint || !eps[1].IsRemoteEndpoint || eps[0].VirtualNetwork != "6E6D5F3A-0C4B-4F4E-9A44-0C3B1A2E7D11" {
		t.Errorf("endpoints: %+v", eps)
	}
	pls, err := evidence.HNSPolicies.Decode("p", res.Files[evidence.NodeFile("win-1", evidence.FileHNSPolicies)])
	if err != nil || len(pls) != 1 || len(pls[0].Policies) != 2 {
		t.Fatalf("policy lists: %+v %v", pls, err)
	}
	p := pls[0].Policies[0]
	if p.Type != "ELB" || len(p.VIPs) != 1 || p.VIPs[0] != "10.32.0.10" || p.Protocol != 17 || p.InternalPort != 53 || p.SourceVIP != "10.200.2.2" {
		t.Errorf("policy: %+v", p)
	}
	if ids := pls[0].EndpointIDs(); len(ids) != 1 || ids[0] != "A1B2C3D4-0000-4000-8000-000000000001" {
		t.Errorf("references: %v", ids)
	}
	if v := res.Bundles[0].Version; v != "microsoft/SDN 2024-07 or later (windowsServices.txt, hnsportpoolallocs.txt: ea43876), HNS schema v2" {
		t.Errorf("version: %q", v)
	}
}
