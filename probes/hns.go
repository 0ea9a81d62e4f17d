package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// HNSNetworkProbe (HNS-NETWORK): the pod network the node should have exists, has the
// right type, and its subnet is the node's podCIDR.
type HNSNetworkProbe struct{}

func (HNSNetworkProbe) ID() string    { return "HNS-NETWORK" }
func (HNSNetworkProbe) Title() string { return "HNS pod network exists and matches podCIDR" }
func (HNSNetworkProbe) Needs() []string {
	return []string{collectors.NodeHNSNetworks, collectors.NodeCNIConfig, collectors.NodeProcesses,
		collectors.NodeServices, collectors.NodeKubeProxyLog, collectors.ClusterNodes}
}

func (p HNSNetworkProbe) Check(node string, ev collectors.Evidence) []Finding {
	c := check{p.ID(), node, ev}
	nets, netPath, bad := nodeFile(c, collectors.NodeHNSNetworks, decode.DecodeHNSNetworks)
	if bad != nil {
		return []Finding{*bad}
	}
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return []Finding{*bad}
	}
	evidence := []string{netPath, collectors.ClusterNodes}
	plan, ok := c.plan()
	if !ok {
		f := c.finding(Skip, "cannot tell which HNS network this node should have",
			"no CNI config and no kube-proxy --network-name / KUBE_NETWORK in the evidence",
			"networks present: "+netList(nets))
		f.Evidence = evidence
		return []Finding{f}
	}
	evidence = append(evidence, plan.source)
	net, found := decode.FindNetwork(nets, plan.name)
	if !found {
		return []Finding{c.waiting(plan, nets, self.Spec.PodCIDR, evidence)}
	}
	var problems []string
	if plan.kind != "" && net.Kind() != plan.kind {
		problems = append(problems, fmt.Sprintf("type: expected %s (from %s), actual %s", plan.kind, plan.source, net.Type))
	}
	podCIDR := self.Spec.PodCIDR
	if podCIDR == "" {
		f := c.finding(Warn, fmt.Sprintf("network %s exists but node %s has no podCIDR to compare its subnet with", net.Name, node),
			"see NODE-PODCIDR")
		f.Evidence = evidence
		return []Finding{f}
	}
	if !subnetMatches(net, podCIDR) {
		problems = append(problems, fmt.Sprintf("subnet: expected %s (node spec.podCIDR), actual %s", podCIDR, strings.Join(net.Prefixes(), ", ")))
	}
	if len(problems) > 0 {
		f := c.finding(Fail, fmt.Sprintf("HNS network %s does not match the node", net.Name), problems...)
		f.Details = append(f.Details, "the network was created for another podCIDR or by another CNI: recreating it needs the node drained first")
		f.Fix = drainFix(node)
		f.Fix.Notes = []string{"then recreate the network: re-run C:\\k\\start.ps1 (its CleanupOldNetwork removes the network and ALL containers), and uncordon"}
		f.Evidence = evidence
		return []Finding{f}
	}
	f := c.finding(Pass, fmt.Sprintf("HNS network %s (%s) has subnet %s = podCIDR", net.Name, net.Type, podCIDR))
	f.Evidence = evidence
	return []Finding{f}
}

// waiting explains a missing pod network: what exists, and the likeliest cause.
func (c check) waiting(plan netPlan, nets []decode.HNSNetwork, podCIDR string, evidence []string) Finding {
	onlyHost := true
	for _, n := range nets {
		if !isHostOnly(n) {
			onlyHost = false
		}
	}
	summary := fmt.Sprintf("HNS network %s does not exist", plan.name)
	if onlyHost {
		summary = fmt.Sprintf("waiting for the network %s to be created: only %s exist", plan.name, netList(nets))
	}
	f := c.finding(Fail, summary, "expected: network "+plan.name+" (from "+plan.source+")", "actual: "+netList(nets))
	switch cause := c.waitCause(podCIDR); {
	case cause != "":
		f.Details = append(f.Details, "cause: "+cause)
	default:
		f.Details = append(f.Details, "cause unknown from this evidence: read the kubelet and flanneld logs")
	}
	f.Details = append(f.Details, "fix the cause, then re-run start.ps1; note that its CleanupOldNetwork removes the HNS network and force-removes ALL containers")
	f.Evidence = evidence
	return f
}

func (c check) waitCause(podCIDR string) string {
	if podCIDR == "" {
		return "node spec.podCIDR is empty, so the kubelet start script cannot create the network (NODE-PODCIDR: kube-controller-manager without --allocate-node-cidrs=true)"
	}
	svcs, _ := optional(c, collectors.NodeServices, decode.DecodeServices)
	procs, okp := optional(c, collectors.NodeProcesses, decode.DecodeProcesses)
	if okp {
		if st := kubeletComponent().state(svcs, procs); !st.hasProc && (!st.hasSvc || st.svc.Status != "Running") {
			return "the kubelet is not running; start-kubelet.ps1 creates the network before starting it (SVC-KUBELET)"
		}
		if cni, ok := optional(c, collectors.NodeCNIConfig, decode.DecodeCNIConfig); ok && strings.EqualFold(cni.Type, "flannel") {
			if _, ok := decode.FindProcess(procs, "flanneld"); !ok {
				if s, ok := decode.FindService(svcs, "flanneld"); !ok || s.Status != "Running" {
					return "flanneld is not running; with flannel it creates the network"
				}
			}
		}
	}
	return ""
}

func subnetMatches(n decode.HNSNetwork, podCIDR string) bool {
	want, ok := prefix(podCIDR)
	if !ok {
		return false
	}
	for _, s := range n.Prefixes() {
		have, ok := prefix(s)
		if !ok {
			continue
		}
		if have == want || (n.Kind() == "overlay" && have.Bits() <= want.Bits() && have.Contains(want.Addr())) {
			return true
		}
	}
	return false
}

func netList(nets []decode.HNSNetwork) string {
	if len(nets) == 0 {
		return "no HNS networks"
	}
	parts := make([]string, len(nets))
	for i, n := range nets {
		parts[i] = fmt.Sprintf("%s (%s %s)", n.Name, n.Type, strings.Join(n.Prefixes(), ","))
	}
	return strings.Join(parts, ", ")
}
