package foreign

import (
	"path"
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// Antrea's support bundle of a Windows agent (`antctl supportbundle`, saved as
// agent_<node>.tar.gz; antrea-io/antrea pkg/support/dump.go and dump_windows.go @
// fc70f2b, pkg/antctl/raw/supportbundle/command.go) holds at its top, each file the
// CombinedOutput of `powershell.exe <command>` written as it came:
//
//	agentinfo          the AntreaAgentInfo as YAML (nodeRef.name is the node)
//	network-adapters   Get-NetAdapter
//	ipconfig           ipconfig /all
//	routes             route print
//	HNSNetwork         Get-HNSNetwork (its list view)
//	HNSEndpoint        Get-HNSEndpoint (its list view)
//	logs/agent/, logs/ovs/, logs/kubelet/  antrea-agent, OVS and kubelet log files (C:\var\log\kubelet)
//	flows, groups, ovsports, networkpolicies..., memprofile, goroutinestacks
func antreaCollector() collector {
	return collector{
		name:     "antctl supportbundle (Antrea, Windows agent)",
		upstream: "antrea-io/antrea pkg/support/dump_windows.go, pkg/support/dump.go @ fc70f2b",
		roots: func(files map[string]bool) []string {
			return withRoot(files, "agentinfo", "ipconfig") // ipconfig: the Windows agent's; HNSNetwork is missing where HNS failed
		},
		wants: func(rel string) bool {
			switch rel {
			case "agentinfo", "ipconfig", "routes", "HNSNetwork", "HNSEndpoint":
				return true
			}
			return strings.HasPrefix(rel, "logs/kubelet/")
		},
		known: []knownFile{
			{"network-adapters", "Get-NetAdapter: no probe reads it"},
			{"logs/agent/*", "antrea-agent's logs: no evidence key holds them"},
			{"logs/ovs/*", "OVS logs: no probe reads them"},
			{"flows", "OVS flows: no probe reads them"}, {"groups", "OVS groups: no probe reads them"},
			{"ovsports", "OVS ports: no probe reads them"},
			{"memprofile", "a heap profile"}, {"goroutinestacks", "goroutine stacks"},
			{"*", "antctl get output (network policies, address groups, ...): no probe reads it"},
		},
		read: readAntrea,
	}
}

func readAntrea(m *mapper) {
	m.b.Version = "Windows agent (agentinfo, HNSNetwork, HNSEndpoint at the top)"
	m.paste(pasted{rel: "HNSNetwork", command: "Get-HNSNetwork"})
	m.paste(pasted{rel: "HNSEndpoint", command: "Get-HNSEndpoint"})
	m.paste(pasted{rel: "ipconfig", command: "ipconfig /all"}, pasted{rel: "routes", command: "route print"})
	// The newest kubelet log the bundle copied (klog names them
	// kubelet.<host>.<user>.log.<LEVEL>.<time>.<pid>; the INFO one holds every line).
	var newest string
	for _, rel := range m.rels {
		if strings.HasPrefix(rel, "logs/kubelet/") && strings.Contains(path.Base(rel), "INFO") && rel > newest {
			newest = rel
		}
	}
	if newest == "" {
		for _, rel := range m.rels {
			if strings.HasPrefix(rel, "logs/kubelet/") && rel > newest {
				newest = rel
			}
		}
	}
	if newest != "" && m.log(newest, evidence.KubeletLog, 200) {
		m.log(newest, evidence.LogKubelet, 0)
	}
	if t, ok := m.text("agentinfo"); ok {
		re := regexp.MustCompile(`(?m)^nodeRef:\s*\n(?:\s+\w+:.*\n)*?\s+name:\s*(\S+)`)
		if sub := re.FindSubmatch(t); sub != nil {
			m.hosts = append(m.hosts, string(sub[1]))
			m.b.NodeFrom = "agentinfo's nodeRef"
		}
		m.known("agentinfo", "the AntreaAgentInfo: the node's name")
	}
	if sub := regexp.MustCompile(`^agent_(.+)\.tar\.gz$`).FindStringSubmatch(path.Base(m.b.Source)); sub != nil && len(m.hosts) == 0 {
		m.hosts = append(m.hosts, sub[1])
		m.b.NodeFrom = "the bundle's name (agent_<node>.tar.gz)"
	}
	collectIPs(m)
}
