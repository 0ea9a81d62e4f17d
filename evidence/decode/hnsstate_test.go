package decode

import (
	"slices"
	"testing"
)

// TestHNSState: the shapes Windows PowerShell 5.1 prints for endpoints, policy lists,
// disks and events, including the ones a shallow ConvertTo-Json or a hand-saved file
// leaves.
func TestHNSState(t *testing.T) {
	eps, err := DecodeHNSEndpoints("hns-endpoints.json", []byte("[\r\n    {\r\n        \"ID\":  \"18CA0B2B-3203-4C49-98F4-A3FCB812E48C\",\r\n"+
		"        \"IPAddress\":  \"100.96.1.2\",\r\n        \"State\":  3,\r\n        \"RemoveProcessingStartTime\":  132768214068678123,\r\n"+
		"        \"SharedContainers\":  \"db072a92158874a6\",\r\n        \"VirtualNetworkName\":  \"antrea-hnsnetwork\"\r\n    },\r\n"+
		"    {\"ID\": \"35F557C2\", \"IPAddress\": \"10.99.234.145\", \"IsRemoteEndpoint\": \"True\"},\r\n"+
		"    {\"ID\": \"028ABAED\", \"IPAddress\": \"100.244.206.68\", \"IsRemoteEndpoint\": false}\r\n]\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 3 || eps[0].State != 3 || eps[0].RemoveProcessingStartTime == 0 || !slices.Equal(eps[0].SharedContainers, Strings{"db072a92158874a6"}) ||
		!eps[0].Local() || eps[1].Local() || !eps[2].Local() || eps[0].VirtualNetworkName != "antrea-hnsnetwork" {
		t.Errorf("endpoints %+v", eps)
	}
	if eps, err := DecodeHNSEndpoints("hns-endpoints.json", []byte("[\r\n\r\n]")); err != nil || len(eps) != 0 {
		t.Errorf("no endpoints: %v %v", eps, err)
	}
	if _, err := DecodeHNSEndpoints("hns-endpoints.json", []byte(`[{"ID": ["x"]}]`)); err == nil {
		t.Error("an ID that is a list decoded")
	}
	lists, err := DecodeHNSPolicyLists("hns-policylists.json", []byte(`{"ID": "A335D997", "Policies": [{"Type": "ELB", "VIPs": "10.96.0.10",
		"Protocol": 17, "InternalPort": 53, "ExternalPort": 53, "SourceVIP": "100.244.206.66"}],
		"References": ["/endpoints/028abaed-7ff6-4fdc-992c-d3b004936be0", "/endpoints/e84bad42-a6ee-40a8-8145-c9f084654774"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(lists) != 1 || !slices.Equal(lists[0].Policies[0].VIPs, Strings{"10.96.0.10"}) || lists[0].Policies[0].Protocol != 17 ||
		!slices.Equal(lists[0].EndpointIDs(), []string{"028ABAED-7FF6-4FDC-992C-D3B004936BE0", "E84BAD42-A6EE-40A8-8145-C9F084654774"}) {
		t.Errorf("policy lists %+v, ids %v", lists, lists[0].EndpointIDs())
	}
	disks, err := DecodeDisks("disk.json", []byte("{\r\n    \"DeviceID\":  \"C:\",\r\n    \"FreeSpace\":  65498251264,\r\n    \"Size\":  \"136363954176\"\r\n}"))
	if err != nil || len(disks) != 1 || disks[0].FreeSpace != 65498251264 || disks[0].Size != 136363954176 {
		t.Errorf("disks %+v %v", disks, err)
	}
	evs, err := DecodeWinEvents("winevent-scm.json", []byte(`[{"TimeCreated": "2026-12-01T08:00:00.0000000Z", "Id": 7031, "Level": 2,
		"LevelDisplayName": "Fehler", "ProviderName": "Service Control Manager", "Message": "The Host Network Service service terminated unexpectedly."}]`))
	if err != nil || len(evs) != 1 || evs[0].Id != 7031 || evs[0].Level != 2 {
		t.Errorf("events %+v %v", evs, err)
	}
	if _, err := DecodeWinEvents("winevent-scm.json", []byte(`Get-WinEvent : No events were found`)); err == nil {
		t.Error("an error message decoded as events")
	}
}

func FuzzHNSState(f *testing.F) {
	f.Add([]byte(`[{"ID":"A","IPAddress":"10.0.0.1","IsRemoteEndpoint":"True","State":3,"RemoveProcessingStartTime":1}]`))
	f.Add([]byte(`{"ID":"L","Policies":[{"Type":"ELB","VIPs":"10.96.0.10","Protocol":17}],"References":"/endpoints/x"}`))
	f.Add([]byte(`{"DeviceID":"C:","FreeSpace":"1","Size":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeHNSEndpoints("f", b)
		_, _ = DecodeHNSPolicyLists("f", b)
		_, _ = DecodeDisks("f", b)
		_, _ = DecodeWinEvents("f", b)
	})
}
