package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// FileDefender is Microsoft Defender's state and the container settings that interfere
// with Windows containers (FM-30). Evidence collected before this version lacks
// it and HOST-AV skips.
const FileDefender = "defender.json"

// defenderKeys are this file's keys, in table order (appended to nodeKeys).
func defenderKeys() []Ref { return []Ref{Defender} }

// Defender is nodes/<node>/defender.json.
var Defender Key[decode.Defender] = NodeKey(FileDefender, decode.DecodeDefender, Meta{
	Command: "`Get-MpComputerStatus` (AMServiceEnabled, AMRunningMode, RealTimeProtectionEnabled), `Get-MpPreference` (ExclusionPath, ExclusionProcess), `Get-MpThreat | ? { $_.IsActive -or $_.DidThreatExecute }` (node-problem-detector's WindowsDefenderThreatsDetected; ThreatID, ThreatName, SeverityID, Resources, at most 20), and Debug-ContainerHost.ps1's registry values: VSmbDisableOplocks and zz* under `HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Virtualization\\Containers`, FDVDenyWriteAccess under `HKLM:\\SYSTEM\\CurrentControlSet\\Policies\\Microsoft\\FVE`; `ConvertTo-Json -Depth 3`",
	Format:  "one object; `Defender` false with `DefenderError` when the Defender module is missing or Defender does not answer (another antivirus, or Defender off); `ExclusionPath`/`ExclusionProcess`/`Resources` a list or one string; `ZZValues` as `name=value`; the registry values null when absent",
})
