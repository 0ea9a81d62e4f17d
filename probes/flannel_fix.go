package probes

import (
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// resetSourceVIPFix removes the stale source VIP files and gets kube-proxy a new source
// VIP in the pod subnet (fix-reset-source-vip.ps1): for a kube-proxy service by reserving
// one with host-local as GetSourceVip does and setting it in its AppParameters; for a
// HostProcess kube-proxy by stopping it, so its pod's start.ps1 reserves one on restart.
func (c C) resetSourceVIPFix(stale []string, pod netip.Prefix) *Fix {
	svcs, _ := optional(c, evidence.Services())
	svc, isSvc := decode.FindService(svcs, kubeProxyComponent().services...)
	isSvc = isSvc && svc.AppParameters != ""
	network := "vxlan0"
	if p, ok := c.plan(); ok {
		network = p.name
	}
	cniBin := `C:\k\cni` // helper.psm1's CNI_PATH
	if d, ok := optional(c, evidence.CNIDirs()); ok && d.BinDir != "" {
		cniBin = string(d.BinDir)
	}
	cmds := []string{"Remove-Item -LiteralPath " + psList(stale)}
	params := map[string]any{"Path": stale, "Service": "", "Network": network, "Subnet": pod.String(), "CniBin": cniBin}
	impact := "Service traffic on this node pauses while kube-proxy restarts (seconds)"
	if isSvc {
		params["Service"] = svc.Name
		dir := strings.ReplaceAll(path.Dir(strings.ReplaceAll(stale[0], `\`, "/")), "/", `\`)
		cmds = append(cmds,
			fmt.Sprintf(`host-local (%s\host-local.exe, CNI_COMMAND=ADD) < %s\sourceVipRequest.json for %s on %s > %s\sourceVip.json   # GetSourceVip`, cniBin, dir, pod, network, dir),
			fmt.Sprintf("set --source-vip=<its address> in HKLM:\\SYSTEM\\CurrentControlSet\\Services\\%s\\Parameters AppParameters", svc.Name),
			"Restart-Service -Name "+psQuote(svc.Name)+" -Force")
	} else {
		cmds = append(cmds, "Stop-Process -Name kube-proxy -Force   # the kubelet restarts its HostProcess container, whose start.ps1 reserves a new source VIP")
	}
	return &Fix{ID: "reset-source-vip", Title: "Remove the stale source VIP files and give kube-proxy one in " + pod.String(),
		Kind: NodeScript, Action: "fix-reset-source-vip", Params: params, Commands: cmds, Verify: c.id, Impact: impact,
		Precheck: "the files still exist as previewed",
		Notes: []string{"kubernetes/website windows.md (Flannel troubleshooting): after a rejoin remove C:\\k\\SourceVip.json and C:\\k\\SourceVipRequest.json",
			"the old address stays reserved in host-local's C:\\var\\lib\\cni\\networks\\<network> folder until it is removed; it is outside the new range, so it takes nothing from it"}}
}
