package probes

import (
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// flannelState (FLANNEL-STATE): on a flannel node, flanneld runs, its subnet.env holds the
// node's spec.podCIDR and the cluster CIDR, and on overlay the source VIP kube-proxy uses
// lies in the node's pod subnet (failure mode FM-13).
//
//   - flanneld writes C:\run\flannel\subnet.env at start from its lease, which with
//     --kube-subnet-mgr is the Node's podCIDR (flannel main.go, pkg/subnet WriteSubnetFile:
//     FLANNEL_SUBNET is the lease's first address); the flannel CNI plugin fails every
//     sandbox without it ("loadFlannelSubnetEnv failed").
//   - the source VIP is reserved once, from the network's subnet, by GetSourceVip
//     (microsoft/SDN helper.psm1: C:\k\sourceVip.json, kept when it exists) or the
//     sig-windows-tools HostProcess kube-proxy's start.ps1 (C:\sourcevip, reused when it
//     exists). After a node is deleted and rejoins with another podCIDR the old file stays,
//     and kube-proxy keeps a source VIP outside the new subnet (kubernetes/website
//     windows.md, Flannel troubleshooting: remove SourceVip.json and SourceVipRequest.json).
//
// HNS-NETWORK names flanneld when the network is missing and SVC-LB-POLICY a load
// balancer source VIP outside the pod network; this probe is their cause (causes.go).
type flannelState struct{}

func (flannelState) Spec() Spec {
	return Spec{ID: "FLANNEL-STATE", Layouts: []string{LayoutAnthos, LayoutKubeadmHPC},
		Title: "flanneld runs; subnet.env and the source VIP match the node's podCIDR", FM: []string{"FM-13"},
		Reads: []evidence.Ref{evidence.Flannel, evidence.CNIConfig, evidence.Processes, evidence.WindowsServices, evidence.Pods,
			evidence.HNSNetworks, evidence.ClusterNodes, evidence.ClusterConfig, evidence.ClusterServices, evidence.CNIDirs}}
}

// flanneldComponent: the nssm service of the SDN scripts, or the kube-flannel container of
// the HostProcess DaemonSet (sig-windows-tools flannel-overlay.yml).
func flanneldComponent() component {
	return component{"flanneld", []string{"flanneld"}, []string{"flanneld.exe"}, []string{"kube-flannel"}}
}

func (flannelState) Check(c C) Finding {
	why, ok, layoutCites := c.flannelLayout()
	if !ok {
		return c.Skip("not a flannel node: "+why, layoutCites...)
	}
	files, fpath, bad := need(c, evidence.Flannel)
	if bad != nil {
		return c.notCollected(fpath, bad)
	}
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	cites := append(layoutCites, fpath, evidence.PathNodes)
	pod, havePod := prefix(self.Spec.PodCIDR)
	facts := []string{"flannel node: " + why}
	var fails []string
	var fix *Fix

	runs, runWhy, runPath, runFix := c.flanneldRuns()
	cites = append(cites, runPath)
	facts = append(facts, runWhy)
	if !runs {
		fails, fix = append(fails, runWhy), runFix
	}

	env, envFile, found, err := files.SubnetEnv()
	switch {
	case !found:
		fails = append(fails, `no C:\run\flannel\subnet.env: the flannel CNI plugin fails every pod sandbox ("loadFlannelSubnetEnv failed: open /run/flannel/subnet.env")`)
	case err != nil:
		fails = append(fails, fmt.Sprintf("%s cannot be read: %v", envFile.Path, err))
	default:
		facts = append(facts, fmt.Sprintf("%s (written %s): FLANNEL_NETWORK=%s FLANNEL_SUBNET=%s FLANNEL_MTU=%d FLANNEL_IPMASQ=%v",
			envFile.Path, orNone(string(envFile.LastWriteTime)), env.Network, env.Subnet, env.MTU, env.IPMasq))
		fails = append(fails, c.subnetEnvProblems(env, pod, havePod)...)
	}

	if overlay, how := c.overlayNetwork(); overlay && havePod {
		facts = append(facts, "overlay ("+how+"): kube-proxy needs a source VIP in "+pod.String())
		vipFails, stale := c.sourceVIPProblems(files, pod)
		fails = append(fails, vipFails...)
		if len(stale) > 0 && fix == nil {
			fix = c.resetSourceVIPFix(stale, pod)
		}
		if vip, src := c.sourceVIP(); src != "" {
			cites = append(cites, src)
			facts = append(facts, "kube-proxy --source-vip="+vip+" ("+src+")")
		}
		for _, v := range files.SourceVIPs() {
			if v.Address.IsValid() {
				facts = append(facts, fmt.Sprintf("%s reserves %s", v.VIP.Path, v.Address))
			}
		}
	}
	if len(fails) == 0 {
		return c.Pass(fmt.Sprintf("flanneld runs; subnet.env FLANNEL_SUBNET=%s is in podCIDR %s", env.Subnet, self.Spec.PodCIDR), cites...).With(facts...)
	}
	f := c.Fail(fails[0], cites...).With(append(fails[1:], facts...)...)
	if fix != nil {
		f = f.WithFix(fix)
	}
	return f
}

// flannelLayout says whether the node runs flannel: its CNI config delegates to it, or
// flanneld is there as a process, a service or a kube-flannel pod.
func (c C) flannelLayout() (string, bool, []string) {
	cni, haveCNI := optional(c, evidence.CNIConfig)
	if haveCNI && strings.EqualFold(cni.Type, "flannel") {
		return fmt.Sprintf("CNI config %s is type flannel", cni.Name), true, []string{c.Path(evidence.CNIConfig)}
	}
	procs, _ := optional(c, evidence.Processes)
	svcs, _ := optional(c, evidence.WindowsServices)
	if st := flanneldComponent().state(svcs, procs); st.hasProc || st.hasSvc {
		return "flanneld is installed (process or service)", true, []string{c.Path(evidence.Processes), c.Path(evidence.WindowsServices)}
	}
	if d, ok := c.componentPod(flanneldComponent()); ok {
		return "the kube-flannel pod " + d.name() + " is on this node", true, []string{evidence.PathPods}
	}
	if haveCNI {
		return fmt.Sprintf("CNI config %s is type %s, and no flanneld runs", cni.Name, cni.Type), false, []string{c.Path(evidence.CNIConfig)}
	}
	return "no flannel CNI config and no flanneld", false, []string{c.Path(evidence.Processes)}
}

// flanneldRuns: the flanneld process, else its service's or its DaemonSet pod's state.
func (c C) flanneldRuns() (bool, string, string, *Fix) {
	procs, _ := optional(c, evidence.Processes)
	svcs, _ := optional(c, evidence.WindowsServices)
	st := flanneldComponent().state(svcs, procs)
	switch d, isPod := c.componentPod(flanneldComponent()); {
	case st.hasProc:
		return true, fmt.Sprintf("flanneld runs (pid %d)", st.proc.ProcessId), c.Path(evidence.Processes), nil
	case st.hasSvc && st.svc.Status == "Running":
		return true, "service " + st.svc.Name + " is Running", c.Path(evidence.WindowsServices), nil
	case st.hasSvc:
		return false, fmt.Sprintf("flanneld is not running: service %s is %s", st.svc.Name, st.svc.Status), c.Path(evidence.WindowsServices),
			startFix(c.id, []string{st.svc.Name})
	case isPod:
		if up, why := d.running(); up {
			return true, "flanneld runs in " + d.owner(), evidence.PathPods, nil
		} else {
			return false, "flanneld is not running: " + d.owner() + ": " + why, evidence.PathPods, podFix(c.id, d)
		}
	}
	return false, "flanneld is not running: no flanneld.exe process, no flanneld service and no kube-flannel pod on this node", c.Path(evidence.Processes),
		&Fix{ID: "start-flanneld", Title: "Start flanneld", Kind: Manual, Verify: c.id,
			Commands: []string{
				`[Environment]::SetEnvironmentVariable("NODE_NAME", "` + c.node + `")`,
				`C:\flannel\flanneld.exe --kubeconfig-file=C:\k\config --iface=<node IP> --ip-masq=1 --kube-subnet-mgr=1`,
			},
			Notes: []string{"kubernetes/website windows.md (Flannel troubleshooting); with the HostProcess DaemonSet check kubectl -n kube-flannel get ds -o wide instead"}}
}

// subnetEnvProblems: FLANNEL_SUBNET in the podCIDR, FLANNEL_NETWORK the cluster CIDR.
func (c C) subnetEnvProblems(env decode.FlannelSubnet, pod netip.Prefix, havePod bool) []string {
	var out []string
	sub, okSub := prefix(env.Subnet)
	if havePod && (!okSub || sub != pod) {
		out = append(out, fmt.Sprintf("subnet.env FLANNEL_SUBNET=%s is not the node's podCIDR %s: it was written for another lease (a rejoin) and flanneld has not rewritten it",
			orNone(env.Subnet), pod))
	}
	plan := c.addressPlan()
	netw, okNet := prefix(env.Network)
	switch {
	case !okNet:
		out = append(out, fmt.Sprintf("subnet.env FLANNEL_NETWORK=%q is not a CIDR", env.Network))
	case plan.cluster.known() && !plan.cluster.inferred && netw != plan.cluster.prefix:
		out = append(out, fmt.Sprintf("subnet.env FLANNEL_NETWORK=%s is not the cluster CIDR %s", netw, plan.cluster.describe()))
	case havePod && !netw.Contains(pod.Addr()):
		out = append(out, fmt.Sprintf("subnet.env FLANNEL_NETWORK=%s does not hold the podCIDR %s", netw, pod))
	}
	return out
}

// overlayNetwork says whether the node's pod network is an overlay (VXLAN): only there
// does kube-proxy need a source VIP.
func (c C) overlayNetwork() (bool, string) {
	if p, ok := c.plan(); ok && p.kind != "" {
		return p.kind == "overlay", p.source
	}
	nets, _ := optional(c, evidence.HNSNetworks)
	for _, n := range nets {
		if !isHostOnly(n) && n.Kind() == "overlay" {
			return true, "HNS network " + string(n.Name)
		}
	}
	return false, ""
}

// sourceVIPProblems: every source VIP file and kube-proxy's --source-vip lie in the pod
// subnet; stale lists the files to remove.
func (c C) sourceVIPProblems(files decode.FlannelFiles, pod netip.Prefix) (fails []string, stale []string) {
	for _, v := range files.SourceVIPs() {
		bad := false
		switch {
		case v.VIP.Path != "" && v.Problem != "":
			fails, bad = append(fails, fmt.Sprintf("%s holds no source VIP: %s", v.VIP.Path, v.Problem)), true
		case v.VIP.Path != "" && !pod.Contains(v.Address.Addr()):
			fails, bad = append(fails, fmt.Sprintf("%s reserves the source VIP %s, outside the node's pod subnet %s: a stale file from before the node rejoined",
				v.VIP.Path, v.Address.Addr(), pod)), true
		}
		if v.Request.Path != "" && v.RequestSubnet.IsValid() && v.RequestSubnet != pod {
			fails, bad = append(fails, fmt.Sprintf("%s asked host-local for %s, not the node's pod subnet %s", v.Request.Path, v.RequestSubnet, pod)), true
		}
		if bad {
			for _, p := range []decode.Str{v.VIP.Path, v.Request.Path} {
				if p != "" {
					stale = append(stale, string(p))
				}
			}
		}
	}
	if vip, _ := c.sourceVIP(); vip != "" {
		if a, err := netip.ParseAddr(vip); err != nil || !pod.Contains(a) {
			fails = append(fails, fmt.Sprintf("kube-proxy runs with --source-vip=%s, outside the node's pod subnet %s: its load balancers' SNAT address has no endpoint", vip, pod))
		}
	}
	return fails, stale
}

// resetSourceVIPFix removes the stale source VIP files and gets kube-proxy a new source
// VIP in the pod subnet (fix-reset-source-vip.ps1): for a kube-proxy service by reserving
// one with host-local as GetSourceVip does and setting it in its AppParameters; for a
// HostProcess kube-proxy by stopping it, so its pod's start.ps1 reserves one on restart.
func (c C) resetSourceVIPFix(stale []string, pod netip.Prefix) *Fix {
	svcs, _ := optional(c, evidence.WindowsServices)
	svc, isSvc := decode.FindService(svcs, kubeProxyComponent().services...)
	isSvc = isSvc && svc.AppParameters != ""
	network := "vxlan0"
	if p, ok := c.plan(); ok {
		network = p.name
	}
	cniBin := `C:\k\cni` // helper.psm1's CNI_PATH
	if d, ok := optional(c, evidence.CNIDirs); ok && d.BinDir != "" {
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
