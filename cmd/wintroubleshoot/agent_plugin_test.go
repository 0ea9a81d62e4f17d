package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestAgentAsNPDPlugin: as a node-problem-detector custom plugin, the agent answers per
// condition kind with NPD's exit statuses (0 OK, 1 NonOK, 2 Unknown) and one line: the
// stopped kubelet is a service problem, the node's network is fine, an unknown kind is
// a usage error (2, which NPD reads as Unknown).
func TestAgentAsNPDPlugin(t *testing.T) {
	dir := scenarioDir(t, "kubelet-service-stopped")
	code, out, errOut := run(t, "agent", "--npd-plugin", "service", "--from", dir, "--node", "winpool-7k2pq")
	if code != 1 || !strings.HasPrefix(out, "SVC-KUBELET: ") || strings.Count(out, "\n") != 1 {
		t.Errorf("service: exit %d %q %q, want 1 and one line naming SVC-KUBELET", code, out, errOut)
	}
	code, out, errOut = run(t, "agent", "--npd-plugin", "network", "--from", dir, "--node", "winpool-7k2pq")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("network: exit %d %q %q, want 0 and one line", code, out, errOut)
	}
	if code, _, errOut := run(t, "agent", "--npd-plugin", "kernel", "--from", dir, "--node", "winpool-7k2pq"); code != 2 || !strings.Contains(errOut, "network, service or host") {
		t.Errorf("unknown kind: exit %d %q", code, errOut)
	}
}

// TestNPDConfigNamesTheAgentsConditions: deploy/npd's monitor config runs the plugin once
// per condition kind, each rule setting the condition the agent sets itself.
func TestNPDConfigNamesTheAgentsConditions(t *testing.T) {
	b, err := os.ReadFile("../../deploy/npd/wintroubleshoot-plugin-monitor.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Plugin string
		Rules  []struct {
			Type, Condition string
			Args            []string
		}
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"WindowsNetworkProblem": "network", "WindowsServiceProblem": "service", "WindowsHostProblem": "host"}
	if cfg.Plugin != "custom" || len(cfg.Rules) != len(want) {
		t.Fatalf("plugin %q, %d rules", cfg.Plugin, len(cfg.Rules))
	}
	for _, r := range cfg.Rules {
		if r.Type != "permanent" || !strings.Contains(strings.Join(r.Args, " "), "--npd-plugin="+want[r.Condition]) {
			t.Errorf("rule %+v: want a permanent rule running --npd-plugin=%s", r, want[r.Condition])
		}
	}
}
