package decode

import (
	"encoding/json"
	"strings"
)

// Service is one Windows service (evidence.FileServices). It accepts both the snippet's
// Win32_Service shape (State, StartMode) and a pasted `Get-Service | ConvertTo-Json`
// (Status, StartType as numbers, since PS 5.1 writes enums as integers).
type Service struct {
	Name   string
	Status string // Running, Stopped, StartPending, ...
	// StartType is Automatic, Manual, Disabled, Boot or System; "" when the evidence
	// does not show it (the snippet always selects it: a pasted Get-Service table
	// without the column leaves it out, and unknown is not "not automatic").
	StartType           string
	PathName            string
	ProcessId           int64
	AppParameters       string
	AppEnvironmentExtra []string
}

type rawService struct {
	Name                Str
	Status              json.RawMessage
	State               json.RawMessage
	StartType           json.RawMessage
	StartMode           json.RawMessage
	PathName            Str
	ProcessId           Int
	AppParameters       Str
	AppEnvironmentExtra Strings
}

// serviceStatus names ServiceControllerStatus values (PS 5.1 writes enums as numbers).
func serviceStatus(v string) string {
	switch v {
	case "1":
		return "Stopped"
	case "2":
		return "StartPending"
	case "3":
		return "StopPending"
	case "4":
		return "Running"
	case "5":
		return "ContinuePending"
	case "6":
		return "PausePending"
	case "7":
		return "Paused"
	}
	return v
}

// startType names ServiceStartMode values and Win32_Service's StartMode words.
func startType(v string) string {
	switch strings.ToLower(v) {
	case "0", "boot":
		return "Boot"
	case "1", "system":
		return "System"
	case "2", "auto", "automatic":
		return "Automatic"
	case "3", "manual":
		return "Manual"
	case "4", "disabled":
		return "Disabled"
	}
	return v
}

// DecodeServices reads services.json.
func DecodeServices(file string, b []byte) ([]Service, error) {
	raws, err := Array[rawService](file, b)
	if err != nil {
		return nil, err
	}
	out := make([]Service, 0, len(raws))
	for i, r := range raws {
		if r.Name == "" {
			return nil, fail(file, nil, "item %d has no Name", i+1)
		}
		s := Service{Name: string(r.Name), PathName: string(r.PathName), ProcessId: int64(r.ProcessId),
			AppParameters: string(r.AppParameters), AppEnvironmentExtra: r.AppEnvironmentExtra}
		s.Status = enum(first(r.Status, r.State), serviceStatus)
		s.StartType = enum(first(r.StartType, r.StartMode), startType)
		out = append(out, s)
	}
	return out, nil
}

// FindService looks a service up by name, case-insensitively (installers spell them
// kubelet/Kubelet, kube-proxy/kubeproxy).
func FindService(ss []Service, names ...string) (Service, bool) {
	for _, n := range names {
		for _, s := range ss {
			if strings.EqualFold(s.Name, n) {
				return s, true
			}
		}
	}
	return Service{}, false
}

func first(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

func enum(raw json.RawMessage, name func(string) string) string {
	var s Str
	if len(raw) == 0 || s.UnmarshalJSON(raw) != nil {
		return ""
	}
	return name(string(s))
}

// Process is one running process (evidence.FileProcesses).
type Process struct {
	Name        Str
	ProcessId   Int
	CommandLine Str
}

// DecodeProcesses reads processes.json.
func DecodeProcesses(file string, b []byte) ([]Process, error) {
	return Array[Process](file, b)
}

// FindProcess returns the first process whose image name matches (with or without .exe).
func FindProcess(ps []Process, names ...string) (Process, bool) {
	for _, n := range names {
		n = strings.TrimSuffix(strings.ToLower(n), ".exe")
		for _, p := range ps {
			if strings.TrimSuffix(strings.ToLower(string(p.Name)), ".exe") == n {
				return p, true
			}
		}
	}
	return Process{}, false
}
