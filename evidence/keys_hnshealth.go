package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// Node evidence of HNS's own health: its process's thread
// count (the deadlock sign) and the VFP port state of the local endpoints. Evidence
// collected before this version lacks them and the probes reading them skip.
const (
	FileHNSHealth = "hns-health.json"
	FileVFPPorts  = "vfp-ports.json"
)

// hnsHealthKeys are this file's keys, in table order (appended to nodeKeys).
func hnsHealthKeys() []Ref { return []Ref{HNSHealth, VFPPorts} }

// HNSHealth is nodes/<node>/hns-health.json.
var HNSHealth Key[decode.HNSHealth] = NodeKey(FileHNSHealth, decode.DecodeHNSHealth, Meta{
	Command: "`$s = Get-CimInstance Win32_Service -Filter \"Name='hns'\"; $p = Get-Process -Id $s.ProcessId` as `{State=$s.State; ProcessId; Threads=$p.Threads.Count; Handles=$p.HandleCount; WorkingSetMB; SharedCount; SharedWith=@((Get-CimInstance Win32_Service -Filter \"ProcessId=$($s.ProcessId)\" | ? Name -ne 'hns').Name)}` (at most 20 names) `| ConvertTo-Json`",
	Format:  "one object; `Threads`/`Handles` 0 and `ProcessId` 0 when HNS is stopped; `SharedWith` a list of service names (one name as a string is read too). `.err` when there is no hns service",
})

// VFPPorts is nodes/<node>/vfp-ports.json.
var VFPPorts Key[decode.VFPPorts] = NodeKey(FileVFPPorts, decode.DecodeVFPPorts, Meta{
	Command: "for each local `Get-HnsEndpoint` (IsRemoteEndpoint not true, at most 110): its `Resources.Allocators` entry with Tag 'Endpoint Port', `EndpointPortGuid`, and the `Blocked : TRUE|FALSE` line of `vfpctrl.exe /port <guid> /get-port-state`, as `{Vfpctrl, LocalEndpoints, Ports=@({EndpointId, IPAddress, Port, Blocked, Error})} | ConvertTo-Json -Depth 3`",
	Format:  "one object; `Blocked` true/false, or null with `Error` (vfpctrl's first line, e.g. `ERROR: ...`) when no Blocked line came back. `.err` (\"vfpctrl.exe is not on this node\") where vfpctrl is missing",
})
