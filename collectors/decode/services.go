package decode

import (
	"encoding/json"
	"strings"
)

// Service is one Windows service (collectors.NodeServices). It accepts both the snippet's
// Win32_Service shape (State, StartMode) and a pasted `Get-Service | ConvertTo-Json`
// (Status, StartType as numbers, since PS 5.1 writes enums as integers).
type Service struct {
	Name                string
	Status              string // Running, Stopped, StartPending, ...
	StartType           string // Automatic, Manual, Disabled, Boot, System
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

var serviceStatus = map[string]string{"1": "Stopped", "2": "StartPending", "3": "StopPending", "4": "Running",
	"5": "ContinuePending", "6": "PausePending", "7": "Paused"}
var startType = map[string]string{"0": "Boot", "1": "System", "2": "Automatic", "3": "Manual", "4": "Disabled",
	"auto": "Automatic", "automatic": "Automatic", "manual": "Manual", "disabled": "Disabled"}

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

func enum(raw json.RawMessage, names map[string]string) string {
	var s Str
	if len(raw) == 0 || s.UnmarshalJSON(raw) != nil {
		return ""
	}
	if n, ok := names[strings.ToLower(string(s))]; ok {
		return n
	}
	return string(s)
}
