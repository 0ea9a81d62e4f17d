package decode

import "strings"

// Process is one running process (collectors.NodeProcesses).
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
