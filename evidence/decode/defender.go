package decode

import (
	"strconv"
	"strings"
)

// Defender is defender.json: Microsoft Defender's state where its module answers, the
// threats node-problem-detector reports (WindowsDefenderThreatsDetected: IsActive or
// DidThreatExecute), and the registry values Debug-ContainerHost.ps1 tests
// (MicrosoftDocs/Virtualization-Documentation windows-server-container-tools).
type Defender struct {
	Defender                  Str // True when Get-MpComputerStatus answered
	DefenderError             Str // why not: the module is missing, or Defender did not answer
	AMServiceEnabled          Str
	AMRunningMode             Str // Normal, Passive Mode, EDR Block Mode (newer platforms only)
	RealTimeProtectionEnabled Str
	ExclusionPath             Strings
	ExclusionProcess          Strings
	Threats                   List[DefenderThreat]
	VSmbDisableOplocks        Str // "" when the value does not exist
	ZZValues                  Strings
	FDVDenyWriteAccess        Str // "" when the policy is not set
}

// DefenderThreat is one Get-MpThreat row. Resources are Defender's own strings, such as
// "file:_C:\ProgramData\containerd\...\x.exe" or "process:_pid:1234,ProcessStart:...".
type DefenderThreat struct {
	ThreatID         Str
	ThreatName       Str
	SeverityID       Int
	IsActive         Str
	DidThreatExecute Str
	Resources        Strings
}

// DecodeDefender reads defender.json (one object).
func DecodeDefender(file string, b []byte) (Defender, error) {
	d, err := Object[Defender](file, b)
	if err != nil {
		return d, err
	}
	if !d.Answered() && d.DefenderError == "" {
		return d, fail(file, nil, "defender.json says Defender did not answer but not why: is this the defender.json snippet's output?")
	}
	for i, t := range d.Threats {
		if t.ThreatName == "" && t.ThreatID == "" {
			return d, fail(file, nil, "threat %d has neither ThreatName nor ThreatID", i+1)
		}
	}
	return d, nil
}

// truth reads a PowerShell boolean as ConvertTo-Json prints it (true/false), or as a
// number or string when a hand-made file holds one.
func truth(s Str) bool {
	v := strings.ToLower(strings.TrimSpace(string(s)))
	if n, err := strconv.Atoi(v); err == nil {
		return n != 0
	}
	return v == "true"
}

// Answered says whether Get-MpComputerStatus answered.
func (d Defender) Answered() bool { return truth(d.Defender) }

// RealTime says whether Defender's service and its real-time protection are on.
func (d Defender) RealTime() bool {
	return truth(d.AMServiceEnabled) && truth(d.RealTimeProtectionEnabled)
}

// Passive says whether Defender runs in passive mode (another antivirus is the primary one).
func (d Defender) Passive() bool {
	return strings.Contains(strings.ToLower(string(d.AMRunningMode)), "passive")
}

// ExclusionsHidden says whether Get-MpPreference withheld the exclusions, as newer
// Defender platforms do for non-administrators ("N/A: Must be an administrator to view
// exclusions").
func (d Defender) ExclusionsHidden() bool {
	for _, e := range append(append([]string(nil), d.ExclusionPath...), d.ExclusionProcess...) {
		if strings.HasPrefix(strings.TrimSpace(e), "N/A") {
			return true
		}
	}
	return false
}

// OplocksDisabled says whether VSmbDisableOplocks is set to something other than 0
// (Debug-ContainerHost: "Do not have DisableVSmbOplock set to 1").
func (d Defender) OplocksDisabled() bool {
	return d.VSmbDisableOplocks != "" && strings.TrimSpace(string(d.VSmbDisableOplocks)) != "0"
}

// DenyWrite says whether FDVDenyWriteAccess is set to something other than 0
// (Debug-ContainerHost: "Do not have FDVDenyWriteAccess set to 1").
func (d Defender) DenyWrite() bool {
	return d.FDVDenyWriteAccess != "" && strings.TrimSpace(string(d.FDVDenyWriteAccess)) != "0"
}

// Active says whether the threat is active or ran (node-problem-detector's filter).
func (t DefenderThreat) Active() bool { return truth(t.IsActive) || truth(t.DidThreatExecute) }

// ResourcePath is a resource's path without Defender's "file:_" style prefix.
func ResourcePath(r string) string {
	if kind, rest, ok := strings.Cut(r, ":_"); ok && !strings.ContainsAny(kind, `\/`) {
		return rest
	}
	return r
}
