package foreign

import (
	"bytes"
	"encoding/csv"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// EKS's eks-log-collector.ps1 (awslabs/amazon-eks-ami log-collector-script/windows/
// eks-log-collector.ps1 @ 81fec2e) writes C:\log-collector\collect\system\... and zips it
// with `Compress-Archive -Path $infodir\*` as eks_<instance-id>_<time>.zip, so the zip's
// top is system/:
//
//	system/sysinfo                      systeminfo.exe
//	system/services                     get-service | fl
//	system/kubelet/kubelet-config.json  C:\ProgramData\kubernetes\kubelet-config.json (and kubeconfig)
//	system/kubelet/kubelet-service.csv  Get-WinEvent -ProviderName kubelet | Export-CSV (the kubelet logs to the event log)
//	system/kube-proxy/kube-proxy-service.csv  the same for kube-proxy
//	system/cni/*                        C:\ProgramData\Amazon\EKS\cni\config\* (vpc-bridge.conf)
//	system/network/hns/network.txt      Get-HnsNetwork | Select Name, Type, Id, AddressPrefix, >> ConvertTo-Json -Depth 20
//	system/network/hns/endpoint.txt     the same for Get-HnsEndpoint; policy.txt: Get-HnsPolicyList | ConvertTo-Json
//	system/network/ip.txt, routes.txt   ipconfig /allcompartments /all, route print
//	system/containerd/*.txt, system/docker/*.txt  ctr and docker lists
//	system/events/*.evtx                since 2024-03 (5f96c38); system/gmsa/ since 2025-08 (9dd3e44)
func eksCollector() collector {
	return collector{
		name:     "eks-log-collector.ps1 (EKS)",
		upstream: "awslabs/amazon-eks-ami log-collector-script/windows/eks-log-collector.ps1 @ 81fec2e",
		roots: func(files map[string]bool) []string {
			return withRoot(files, "system/sysinfo", "system/services")
		},
		wants: func(rel string) bool {
			switch rel {
			case "system/sysinfo", "system/services", "system/kubelet/kubelet-config.json", "system/kubelet/kubelet-service.csv",
				"system/kube-proxy/kube-proxy-service.csv", "system/network/hns/network.txt", "system/network/hns/endpoint.txt",
				"system/network/hns/policy.txt", "system/network/ip.txt", "system/network/routes.txt",
				"system/containerd/containerd-images.txt", "system/docker/docker-ps.txt", "system/docker/docker-images.txt",
				"system/containerd_log/panic.log":
				return true
			}
			return strings.HasPrefix(rel, "system/cni/")
		},
		known: eksKnown(),
		read:  readEKS,
	}
}

func readEKS(m *mapper) {
	m.b.Version = "2020-01 to 2024-03 (no system/events/)"
	switch {
	case hasUnder(m.rels, "system/gmsa/"):
		m.b.Version = "2025-08 or later (system/gmsa/: 9dd3e44)"
	case hasUnder(m.rels, "system/events/"):
		m.b.Version = "2024-03 or later (system/events/: 5f96c38)"
	}
	const hns = "system/network/hns/"
	m.putJSON(evidence.HNSNetworks, hns+"network.txt", nil)
	m.putJSON(evidence.HNSEndpoints, hns+"endpoint.txt", endpointsV1)
	m.putJSON(evidence.HNSPolicies, hns+"policy.txt", policyListsV1)
	m.paste(pasted{rel: "system/network/ip.txt", command: "ipconfig /allcompartments /all"},
		pasted{rel: "system/network/routes.txt", command: "route print"})
	m.paste(pasted{rel: "system/services", command: "Get-Service | Format-List"})
	m.paste(pasted{rel: "system/containerd/containerd-images.txt", command: "ctr --namespace k8s.io images list"},
		pasted{rel: "system/docker/docker-ps.txt", command: "docker ps --all --no-trunc"},
		pasted{rel: "system/docker/docker-images.txt", command: "docker images"})
	m.raw("system/kubelet/kubelet-config.json", evidence.KubeletConfig)
	for _, rel := range m.rels {
		if strings.HasPrefix(rel, "system/cni/") && m.raw(rel, evidence.CNIConfig) {
			break
		}
	}
	m.log("system/containerd_log/panic.log", evidence.LogRuntime, 0)
	if kl := eventLog(m, "system/kubelet/kubelet-service.csv"); kl != nil {
		m.put(evidence.KubeletLog, tail(kl, 200), "system/kubelet/kubelet-service.csv")
		m.put(evidence.LogKubelet, kl, "system/kubelet/kubelet-service.csv")
		eksNodeFromLog(m, kl)
	}
	if kp := eventLog(m, "system/kube-proxy/kube-proxy-service.csv"); kp != nil {
		m.put(evidence.KubeProxyLog, tail(kp, 200), "system/kube-proxy/kube-proxy-service.csv")
		m.put(evidence.LogKubeProxy, kp, "system/kube-proxy/kube-proxy-service.csv")
	}
	if t, ok := m.text("system/sysinfo"); ok {
		re := regexp.MustCompile(`(?m)^Host Name:\s+(\S+)\s*$`)
		if sub := re.FindSubmatch(t); sub != nil {
			m.hosts = append(m.hosts, strings.ToLower(string(sub[1])))
			if m.b.NodeFrom == "" {
				m.b.NodeFrom = "systeminfo's Host Name (EKS names nodes after their private DNS name: give a cluster dump or --node)"
			}
		}
		// The build, product and computer name; the update revision (UBR) and the boot
		// time (local format) are listed as not shown in host.json.
		m.paste(pasted{rel: "system/sysinfo", command: "systeminfo"})
		m.known("system/sysinfo", "systeminfo: the node's name only (no OS Version line this reader recognizes)")
	}
	collectIPs(m)
}

// eventLog is the Message column of a Get-WinEvent | Export-CSV file, oldest first
// (Get-WinEvent lists the newest first): the component's klog lines.
func eventLog(m *mapper, rel string) []byte {
	t, ok := m.text(rel)
	if !ok {
		return nil
	}
	if i := bytes.IndexByte(t, '\n'); i >= 0 && bytes.HasPrefix(t, []byte("#TYPE")) {
		t = t[i+1:] // Windows PowerShell 5.1 writes the type name first
	}
	r := csv.NewReader(bytes.NewReader(t))
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	head, err := r.Read()
	col := slices.Index(head, "Message")
	if err != nil || col < 0 {
		m.tried[rel] = "not Export-CSV of Get-WinEvent (no Message column)"
		return nil
	}
	var lines []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			m.tried[rel] = "CSV that does not parse: " + err.Error()
			return nil
		}
		if col < len(rec) {
			lines = append(lines, strings.TrimRight(rec[col], "\r\n"))
		}
	}
	slices.Reverse(lines)
	if len(lines) == 0 {
		return []byte{}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// eksNodeFromLog finds the node's name in the kubelet's own lines (EKS nodes are named
// after their private DNS name, not the computer).
func eksNodeFromLog(m *mapper, kl []byte) {
	re := regexp.MustCompile(`(?:Successfully registered node|Attempting to register node)"? node="([a-z0-9.-]+)"`)
	if sub := re.FindSubmatch(kl); sub != nil {
		m.hosts = append([]string{string(sub[1])}, m.hosts...)
		m.b.NodeFrom = "the kubelet's log (registered node)"
	}
}

func collectIPs(m *mapper) {
	if b, ok := m.node[evidence.FileIPAddresses]; ok {
		if addrs, err := evidence.IPAddresses.Decode(evidence.FileIPAddresses, b); err == nil {
			for _, a := range addrs {
				m.ips = append(m.ips, string(a.IPAddress))
			}
		}
	}
}

func hasUnder(rels []string, prefix string) bool {
	for _, r := range rels {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

func eksKnown() []knownFile {
	const none = "no probe reads it"
	return []knownFile{
		{"system/system-eventlogs.csv", "the System log as CSV (time, level name, machine, message; no event ID or provider): winevent-scm.json needs them"},
		{"system/application-eventlogs.csv", none},
		{"system/volumes", "Get-PSDrive in GB, rounded: disk.json needs bytes"},
		{"system/firewall/*", "Get-NetFirewallRule without its port filters: firewall.json needs them"},
		{"system/installed-*-apps.txt", none},
		{"system/kubelet/kubeconfig", "the kubelet's kubeconfig: " + none},
		{"system/containerd/*", "ctr lists: " + none},
		{"system/docker/*", none},
		{"system/docker_log/*", none},
		{"system/eks/*", "EKS bootstrap logs: " + none},
		{"system/gmsa/**", none},
		{"system/network/hns/networkdetailed.txt", "the networks again with -Detailed: " + none},
		{"system/network/ports.txt", "vfpctrl /list-vmswitch-port: vfp-ports.json needs each port's Blocked state"},
		{"system/events/*", "binary event logs (.evtx): this reader does not parse EVTX"},
	}
}
