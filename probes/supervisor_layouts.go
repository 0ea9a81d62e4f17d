package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Two layouts run the node's components under a supervisor the sweep cannot list, or
// replace one of them outright:
//
//   - RKE2 (rancher/rke2 pkg/executor/pebinary/pebinary.go): the rke2 Windows service runs
//     containerd, the kubelet and kube-proxy as its child processes from
//     C:\var\lib\rancher\rke2\bin and restarts each 5 s after it exits; they have no
//     services of their own, and the sweep's service list does not include rke2.
//   - Antrea (antrea-io/antrea docs/windows.md): from v1.13 antrea-agent takes over all of
//     kube-proxy's work on Windows (AntreaProxy proxyAll), "and kube-proxy should not be
//     deployed on Windows Nodes with Antrea"; antrea-agent and the OVS daemons run in the
//     HostProcess DaemonSet antrea-agent-windows (or as services the sweep does not list).

// rke2Dir is where rke2 keeps its binaries, logs and agent configuration on Windows.
const rke2Dir = `C:\var\lib\rancher\rke2`

// rke2Check is what a support engineer checks for an rke2-supervised component.
const rke2Check = "check Get-Service rke2 (it should be Running, StartType Automatic) and its log: Get-WinEvent -ProviderName rke2 -MaxEvents 50, or the component's own log under " + rke2Dir + `\agent\logs`

// rke2Proc finds a process started by rke2: its executable under the rke2 data dir.
func rke2Proc(procs []decode.Process) (decode.Process, bool) {
	for _, p := range procs {
		if strings.Contains(strings.ToLower(string(p.CommandLine)), `\rancher\rke2\`) {
			return p, true
		}
	}
	return decode.Process{}, false
}

// onRKE2 says whether rke2 runs this node: a process from its data dir, or the kubelet
// version rke2 builds ("v1.30.4+rke2r1") on the Node object, which stays when rke2 and
// every child of it are down.
func (c C) onRKE2(procs []decode.Process) (string, bool) {
	if p, ok := rke2Proc(procs); ok {
		return fmt.Sprintf("%s (pid %d) runs from %s", p.Name, p.ProcessId, rke2Dir), true
	}
	if _, self, bad := c.clusterNodes(); bad == nil && strings.Contains(self.Status.NodeInfo.KubeletVersion, "+rke2") {
		return "the node's kubelet version is " + self.Status.NodeInfo.KubeletVersion + ", an rke2 build", true
	}
	return "", false
}

// rke2Judgement judges a component rke2 supervises. ok is false off rke2.
func (c C) rke2Judgement(comp component, st state, procs []decode.Process) (Finding, bool) {
	why, ok := c.onRKE2(procs)
	if !ok || st.hasSvc {
		return Finding{}, false
	}
	if st.hasProc {
		return c.Pass(fmt.Sprintf("%s runs under rke2 (pid %d); rke2 restarts it when it exits", comp.label, st.proc.ProcessId)).
			With("the rke2 service supervises containerd, the kubelet and kube-proxy as child processes (rancher/rke2 pkg/executor/pebinary); the sweep does not list the rke2 service: " + rke2Check), true
	}
	f := c.Fail(fmt.Sprintf("%s is not running, and rke2 supervises it", comp.label)).
		With(why, "rke2 restarts its children 5 s after they exit, so a component missing for longer means rke2 itself is stopped or keeps failing to start it", rke2Check)
	f.Fix = &Fix{ID: "start-rke2", Title: "Start the rke2 service, which starts " + comp.label, Kind: Manual, Verify: c.id,
		Commands: []string{
			"Get-Service rke2 | Select-Object Name, Status, StartType",
			"Start-Service rke2",
			"Get-Content " + rke2Dir + `\agent\logs\kubelet.log -Tail 50`,
		},
		Notes: []string{"rke2 agent service --add registers it; do not register kubelet or kube-proxy services of their own next to it"}}
	return f, true
}

// antreaAgent finds the antrea-agent pod on this node (DaemonSet antrea-agent-windows).
func (c C) antreaAgent() (dsPod, bool) {
	return c.componentPod(component{label: "antrea-agent", containers: []string{"antrea-agent"}})
}

// antreaProxies says whether Antrea does kube-proxy's work here: its agent pod runs on the
// node, or the CNI config is Antrea's, and no kube-proxy is to be seen.
func (c C) antreaProxies() (dsPod, bool) {
	if d, ok := c.antreaAgent(); ok {
		return d, true
	}
	if cni, ok := optional(c, evidence.CNIConfig); ok && isAntrea(cni) {
		return dsPod{}, true
	}
	return dsPod{}, false
}

// antreaJudgement judges kube-proxy's absence on an Antrea node by the agent that replaces it.
func (c C) antreaJudgement(comp component, st state) (Finding, bool) {
	if comp.label != kubeProxyComponent().label || st.hasSvc || st.hasProc {
		return Finding{}, false
	}
	d, ok := c.antreaProxies()
	if !ok {
		return Finding{}, false
	}
	const role = "Antrea >= 1.13 proxies Services on Windows itself (AntreaProxy with proxyAll) and kube-proxy is not deployed on its Windows nodes (antrea-io/antrea docs/windows.md)"
	if d.pod.Name == "" {
		return c.Pass("no kube-proxy on this Antrea node: antrea-agent proxies Services", c.Path(evidence.CNIConfig)).
			With(role, "the evidence has no antrea-agent pod for this node: check kubectl -n kube-system get pods -l app=antrea,component=antrea-agent -o wide, or Get-Service antrea-agent where it runs as a service"), true
	}
	if up, why := d.running(); !up {
		return c.Fail(fmt.Sprintf("Services on this node are proxied by antrea-agent, which is not running: %s", why), evidence.PathPods).
			With(role, d.owner()).WithFix(podFix(c.id, d)), true
	}
	return c.Pass(fmt.Sprintf("no kube-proxy on this Antrea node: antrea-agent (%s) proxies Services", d.name()), evidence.PathPods).
		With(role, d.owner()+": the kubelet restarts it when it exits and after a reboot"), true
}

// isAntrea: Antrea's conflist (antrea-windows.yml ConfigMap antrea-cni.conflist, plugin
// type "antrea", host-local IPAM on the node's podCIDR).
func isAntrea(cni decode.CNIConfig) bool { return strings.EqualFold(cni.Type, "antrea") }

// antreaNetwork is the HNS network antrea-agent creates (pkg/agent/util/net_windows.go
// LocalHNSNetwork): Transparent, on the adapter holding the node IP, its subnet the
// node's podCIDR.
const antreaNetwork = "antrea-hnsnetwork"
