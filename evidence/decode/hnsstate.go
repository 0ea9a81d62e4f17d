package decode

import (
	"bytes"
	"encoding/json"
	"strings"
)

// HNSEndpoint is one endpoint as `Get-HnsEndpoint | ConvertTo-Json -Depth 8` prints it
// (HNS v1 schema; see the list views in microsoft/SDN's hns.psm1 and the
// Antrea/Calico dumps under fixtures). Remote endpoints (IsRemoteEndpoint) stand for pods
// on other nodes on overlay networks; the others are this node's.
type HNSEndpoint struct {
	ID                 Str
	Name               Str
	IPAddress          Str
	IsRemoteEndpoint   bool
	VirtualNetwork     Str
	VirtualNetworkName Str
	Type               Str
	MacAddress         Str
	// State 3 with RemoveProcessingStartTime set is an endpoint HNS began removing and
	// never finished (jayunit100/k8sprototypes windows/antrea_debugging: the endpoint
	// whose deletion antrea-agent logged as timed out).
	State                     Int
	RemoveProcessingStartTime Int
	SharedContainers          Strings
}

// DecodeHNSEndpoints reads hns-endpoints.json.
func DecodeHNSEndpoints(file string, b []byte) ([]HNSEndpoint, error) {
	return Array[HNSEndpoint](file, b)
}

// Local says whether the endpoint is this node's (not a remote endpoint of overlay).
func (e HNSEndpoint) Local() bool { return !e.IsRemoteEndpoint }

// HNSPolicyList is one load balancer policy list as `Get-HnsPolicyList | ConvertTo-Json
// -Depth 8` prints it: its ELB policies and the endpoints it balances over
// ("/endpoints/<id>" references).
type HNSPolicyList struct {
	ID         Str
	Policies   []HNSLBPolicy
	References Strings
}

// HNSLBPolicy is one policy of a policy list (a load balancer, mostly). VIPs arrive as
// an array or, through a shallow ConvertTo-Json, one string.
type HNSLBPolicy struct {
	Type         Str
	VIPs         Strings
	Protocol     Int // 6 TCP, 17 UDP (IANA protocol numbers)
	InternalPort Int
	ExternalPort Int
	SourceVIP    Str
}

// DecodeHNSPolicyLists reads hns-policylists.json.
func DecodeHNSPolicyLists(file string, b []byte) ([]HNSPolicyList, error) {
	return Array[HNSPolicyList](file, b)
}

// EndpointIDs are the endpoint IDs the list references, upper case as Get-HnsEndpoint
// prints them.
func (l HNSPolicyList) EndpointIDs() []string {
	var out []string
	for _, r := range l.References {
		if _, id, ok := strings.Cut(r, "/endpoints/"); ok {
			out = append(out, strings.ToUpper(id))
		}
	}
	return out
}

// Disk is one logical disk: disk.json prints C: as one object (`DeviceID`, `FreeSpace`,
// `Size` in bytes); a list of disks is read too.
type Disk struct {
	DeviceID  Str
	FreeSpace Int
	Size      Int
}

// DecodeDisks reads disk.json.
func DecodeDisks(file string, b []byte) ([]Disk, error) { return Array[Disk](file, b) }

// WinEvent is one event as the winevent-* snippets select it: TimeCreated (ISO 8601),
// Id, Level (1 critical, 2 error, 3 warning, 4 information; LevelDisplayName is
// localized), LogName, ProviderName, Message.
type WinEvent struct {
	TimeCreated  Str
	Id           Int
	Level        Int
	LogName      Str
	ProviderName Str
	Message      Str
}

// DecodeWinEvents reads winevent-scm.json and winevent-hns.json.
func DecodeWinEvents(file string, b []byte) ([]WinEvent, error) {
	return Array[WinEvent](file, b)
}

// UnmarshalJSON accepts the endpoint's IsRemoteEndpoint as a boolean or a string ("True").
func (e *HNSEndpoint) UnmarshalJSON(b []byte) error {
	type plain HNSEndpoint
	var raw struct {
		plain
		IsRemoteEndpoint json.RawMessage
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = HNSEndpoint(raw.plain)
	v := strings.Trim(string(bytes.TrimSpace(raw.IsRemoteEndpoint)), `"`)
	e.IsRemoteEndpoint = strings.EqualFold(v, "true")
	return nil
}
