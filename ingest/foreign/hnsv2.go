package foreign

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// collectlogs.ps1 (since microsoft/SDN f39bca7, 2022-09) dumps HNS in schema v2 by
// default (-HnsSchemaVersion 2): endpoints and load balancers are HCN objects, whose
// fields follow microsoft/hcsshim hcn/hcnendpoint.go (HostComputeEndpoint) and
// hcn/hcnloadbalancer.go (HostComputeLoadBalancer). Our evidence is the v1 shape
// (Get-HnsEndpoint, Get-HnsPolicyList), so v2 objects are renamed into it; what v2 does
// not carry (an endpoint's State) stays out, and the bundle notes say so.

type hcnEndpoint struct {
	ID                   decode.Str
	Name                 decode.Str
	HostComputeNetwork   decode.Str
	HostComputeNamespace decode.Str
	IpConfigurations     []struct{ IpAddress decode.Str }
	MacAddress           decode.Str
	Flags                decode.Int // 1: a remote endpoint (EndpointFlagsRemoteEndpoint)
}

type hcnLoadBalancer struct {
	ID                   decode.Str
	HostComputeEndpoints []decode.Str
	SourceVIP            decode.Str
	FrontendVIPs         []decode.Str
	PortMappings         []struct {
		Protocol     decode.Int
		InternalPort decode.Int
		ExternalPort decode.Int
	}
}

// isV2 tells schema v2 items by the fields only v2 has.
func isV2(raws []json.RawMessage, fields ...string) bool {
	for _, r := range raws {
		var m map[string]json.RawMessage
		if json.Unmarshal(r, &m) != nil {
			return false
		}
		for _, f := range fields {
			if _, ok := m[f]; ok {
				return true
			}
		}
	}
	return false
}

// endpointsV1 renames v2 endpoints into the v1 shape (ID, Name, IPAddress,
// VirtualNetwork, IsRemoteEndpoint, MacAddress). v1 input comes back as it is.
func endpointsV1(file string, b []byte) ([]byte, bool, error) {
	raws, err := decode.Values(file, b)
	if err != nil {
		return nil, false, err
	}
	if !isV2(raws, "IpConfigurations", "HostComputeNetwork") {
		return b, false, nil
	}
	out := make([]map[string]any, 0, len(raws))
	for i, r := range raws {
		var e hcnEndpoint
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, true, fmt.Errorf("%s: endpoint %d: %w", file, i+1, err)
		}
		v1 := map[string]any{"ID": strings.ToUpper(string(e.ID)), "Name": string(e.Name),
			"VirtualNetwork": strings.ToUpper(string(e.HostComputeNetwork)), "MacAddress": string(e.MacAddress),
			"IsRemoteEndpoint": e.Flags&1 == 1}
		if len(e.IpConfigurations) > 0 {
			v1["IPAddress"] = string(e.IpConfigurations[0].IpAddress)
		}
		out = append(out, v1)
	}
	j, err := json.MarshalIndent(out, "", "    ")
	return j, true, err
}

// policyListsV1 renames v2 load balancers into v1 policy lists: one ELB policy per port
// mapping, the frontend VIPs as its VIPs, the backends as /endpoints/<id> references.
func policyListsV1(file string, b []byte) ([]byte, bool, error) {
	raws, err := decode.Values(file, b)
	if err != nil {
		return nil, false, err
	}
	if !isV2(raws, "FrontendVIPs", "PortMappings", "HostComputeEndpoints") {
		return b, false, nil
	}
	out := make([]map[string]any, 0, len(raws))
	for i, r := range raws {
		var lb hcnLoadBalancer
		if err := json.Unmarshal(r, &lb); err != nil {
			return nil, true, fmt.Errorf("%s: load balancer %d: %w", file, i+1, err)
		}
		vips := make([]string, 0, len(lb.FrontendVIPs))
		for _, v := range lb.FrontendVIPs {
			vips = append(vips, string(v))
		}
		var pols []map[string]any
		for _, pm := range lb.PortMappings {
			pols = append(pols, map[string]any{"Type": "ELB", "VIPs": vips, "Protocol": int64(pm.Protocol),
				"InternalPort": int64(pm.InternalPort), "ExternalPort": int64(pm.ExternalPort), "SourceVIP": string(lb.SourceVIP)})
		}
		refs := make([]string, 0, len(lb.HostComputeEndpoints))
		for _, id := range lb.HostComputeEndpoints {
			refs = append(refs, "/endpoints/"+strings.ToLower(string(id)))
		}
		out = append(out, map[string]any{"ID": strings.ToUpper(string(lb.ID)), "Policies": pols, "References": refs})
	}
	j, err := json.MarshalIndent(out, "", "    ")
	return j, true, err
}
