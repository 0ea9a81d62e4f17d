package decode

import "strings"

// HNSHealth is hns-health.json: the Host Network Service's process as Win32_Service and
// Get-Process see it. Threads is the deadlock sign microsoft/SDN networkhealth.ps1
// (HNSPotentialDeadlock) and hnsautomitigator2019.yaml read; SharedWith names the other
// services of the same svchost.exe, whose threads that count includes.
type HNSHealth struct {
	State        Str
	ProcessId    Int
	Threads      Int
	Handles      Int
	WorkingSetMB Int
	SharedCount  Int
	SharedWith   Strings
}

// DecodeHNSHealth reads hns-health.json (one object).
func DecodeHNSHealth(file string, b []byte) (HNSHealth, error) {
	h, err := Object[HNSHealth](file, b)
	if err != nil {
		return h, err
	}
	switch {
	case h.State == "":
		return h, fail(file, nil, "hns-health.json has no State")
	case h.ProcessId < 0 || h.Threads < 0 || h.Handles < 0 || h.SharedCount < 0:
		return h, fail(file, nil, "hns-health.json has a negative count")
	case h.ProcessId > 0 && h.Threads == 0:
		// a live process has at least one thread: a zero here is a broken file
		return h, fail(file, nil, "hns-health.json names process %d with no threads", h.ProcessId)
	}
	if int(h.SharedCount) < len(h.SharedWith) {
		h.SharedCount = Int(len(h.SharedWith))
	}
	return h, nil
}

// Running says whether HNS runs in a process of its own or a shared one.
func (h HNSHealth) Running() bool {
	return strings.EqualFold(string(h.State), "running") && h.ProcessId > 0
}

// VFPPorts is vfp-ports.json: the VFP port of each local HNS endpoint and whether VFP
// blocks it (`vfpctrl /port <guid> /get-port-state`, the "Blocked : TRUE|FALSE" line).
type VFPPorts struct {
	Vfpctrl        Str
	LocalEndpoints Int
	Ports          List[VFPPort]
}

// VFPPort is one endpoint's port. Blocked is "True", "False" or "" (no Blocked line came
// back; Error says what did).
type VFPPort struct {
	EndpointId Str
	IPAddress  Str
	Port       Str
	Blocked    Str
	Error      Str
}

// isGUID says whether s is a GUID in the 8-4-4-4-12 form vfpctrl and HNS print, braces
// optional.
func isGUID(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// DecodeVFPPorts reads vfp-ports.json (one object).
func DecodeVFPPorts(file string, b []byte) (VFPPorts, error) {
	v, err := Object[VFPPorts](file, b)
	if err != nil {
		return v, err
	}
	if v.LocalEndpoints < 0 || int(v.LocalEndpoints) < len(v.Ports) {
		return v, fail(file, nil, "vfp-ports.json lists %d port(s) for %d local endpoint(s)", len(v.Ports), v.LocalEndpoints)
	}
	for _, p := range v.Ports {
		if p.Port != "" && !isGUID(string(p.Port)) {
			return v, fail(file, nil, "vfp-ports.json: port %.40q is not a GUID", p.Port)
		}
		switch strings.ToLower(string(p.Blocked)) {
		case "true", "false", "":
		default:
			return v, fail(file, nil, "vfp-ports.json: Blocked is %.20q, not true/false", p.Blocked)
		}
	}
	return v, nil
}

// IsBlocked and Known read Blocked.
func (p VFPPort) IsBlocked() bool { return strings.EqualFold(string(p.Blocked), "true") }
func (p VFPPort) Known() bool     { return p.Blocked != "" }
