package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hnsNetwork (HNS-NETWORK): the pod network the node should have exists, has the
// right type, and its subnet is the node's podCIDR.
type hnsNetwork struct{}

func (hnsNetwork) Spec() Spec {
	return Spec{ID: "HNS-NETWORK", Layouts: allLayouts(), Title: "HNS pod network exists and matches podCIDR", FM: []string{"FM-01", "FM-02", "FM-16"},
		Reads: []evidence.Ref{evidence.HNSNetworks, evidence.CNIConfig, evidence.Processes, evidence.WindowsServices, evidence.KubeProxyLog, evidence.Pods, evidence.ClusterNodes,
			evidence.NetInterfaces, evidence.IPAddresses}}
}

func (hnsNetwork) Check(c C) Finding {
	nets, netPath, bad := need(c, evidence.HNSNetworks)
	if bad != nil {
		return *bad
	}
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	plan, ok := c.plan()
	if !ok {
		return c.Skip("cannot tell which HNS network this node should have", netPath, evidence.PathNodes).
			With("no CNI config and no kube-proxy --network-name / KUBE_NETWORK in the evidence", "networks present: "+netList(nets))
	}
	cites := []string{netPath, evidence.PathNodes, plan.source}
	net, found := decode.FindNetwork(nets, plan.name)
	if !found {
		return c.waiting(plan, nets, self.Spec.PodCIDR, decode.NodeAddress(self, "InternalIP"), cites)
	}
	var problems []string
	if plan.kind != "" && net.Kind() != plan.kind {
		problems = append(problems, fmt.Sprintf("type: expected %s (from %s), actual %s", plan.kind, plan.source, net.Type))
	}
	// The network must sit on the adapter that holds the node's InternalIP: one created on
	// another NIC (a Vagrant NAT NIC, a second vNIC) sends VXLAN or bridged traffic out the
	// wrong way (real output: knabben/blog 2021/0903, Calico overlay with ManagementIP
	// 10.0.2.15 on a node registered as 10.20.30.11; fixed by VXLAN_ADAPTER).
	if ip := decode.NodeAddress(self, "InternalIP"); net.ManagementIP != "" && ip != "" && string(net.ManagementIP) != ip {
		problems = append(problems, fmt.Sprintf("management IP: expected %s (node InternalIP), actual %s on adapter %q: the network was created on another adapter",
			ip, net.ManagementIP, net.NetworkAdapterName))
	}
	podCIDR := self.Spec.PodCIDR
	if net.SubnetsUnknown && len(problems) == 0 {
		return c.Skip(fmt.Sprintf("HNS network %s (%s) exists; its subnet was not in the evidence (a pasted list view without Subnets)", net.Name, net.Type), cites...).
			With("re-collect with: " + evidence.HNSNetworks.Meta().Command)
	}
	if _, calico := c.calicoNode(); calico && len(problems) == 0 {
		return c.Pass(fmt.Sprintf("HNS network %s (%s) exists; its subnets are Calico IPAM blocks (%s), not spec.podCIDR", net.Name, net.Type, strings.Join(net.Prefixes(), ", ")), cites...).
			With("Calico's IPAM hands nodes /26 blocks of its IP pools and ignores spec.podCIDR (ipam calico-ipam); check the blocks with calicoctl ipam show --show-blocks")
	}
	if podCIDR == "" {
		if d, ok := c.subnetByDesign(nodes, self); ok && len(problems) == 0 {
			if d.subnet != "" && !subnetMatches(net, d.subnet) {
				return c.Fail(fmt.Sprintf("HNS network %s does not match the node's pod subnet %s", net.Name, d.subnet), append(cites, d.source)...).
					With(d.why, fmt.Sprintf("subnet: expected %s, actual %s", d.subnet, strings.Join(net.Prefixes(), ", ")),
						"the network was created for another subnet: restart the hybrid-overlay-node service, which recreates it from the annotation")
			}
			return c.Pass(fmt.Sprintf("HNS network %s (%s) exists; pods take addresses from the layout's own subnet, not a podCIDR", net.Name, net.Type), append(cites, d.source)...).
				With(d.why, "subnet: "+strings.Join(net.Prefixes(), ", "))
		}
		return c.Warn(fmt.Sprintf("network %s exists but node %s has no podCIDR to compare its subnet with", net.Name, c.node), cites...).
			With("see NODE-PODCIDR")
	}
	if !subnetMatches(net, podCIDR) {
		problems = append(problems, fmt.Sprintf("subnet: expected %s (node spec.podCIDR), actual %s", podCIDR, strings.Join(net.Prefixes(), ", ")))
	}
	if len(problems) > 0 {
		fix := drainFix(c.node)
		fix.Notes = []string{"then recreate the network: re-run C:\\k\\start.ps1 (its CleanupOldNetwork removes the network and ALL containers), and uncordon"}
		if cni, ok := optional(c, evidence.CNIConfig); ok && isCalico(cni) {
			fix.Notes = []string{"then set the adapter Calico must use (VXLAN_ADAPTER, or IP_AUTODETECTION_METHOD, in the calico-node-windows DaemonSet), remove the Calico and External networks (Get-HnsNetwork | ? Name -in 'Calico','External' | Remove-HnsNetwork) and delete the calico-node-windows pod so it recreates them; uncordon"}
		}
		return c.Fail(fmt.Sprintf("HNS network %s does not match the node", net.Name), cites...).
			With(problems...).
			With("the network was created for another podCIDR or by another CNI: recreating it needs the node drained first").
			WithFix(fix)
	}
	return c.Pass(fmt.Sprintf("HNS network %s (%s) has subnet %s = podCIDR", net.Name, net.Type, podCIDR), cites...)
}

// waiting explains a missing pod network: what exists, and the likeliest cause.
func (c C) waiting(plan netPlan, nets []decode.HNSNetwork, podCIDR, nodeIP string, cites []string) Finding {
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
	cause := "cause unknown from this evidence: read the kubelet and flanneld logs"
	// The adapter comes before the kubelet: the SDN scripts throw before they start it.
	why, read := "", []string(nil)
	if podCIDR != "" {
		why, read = c.adapterHint(nodeIP)
	}
	if why == "" {
		why = c.waitCause(podCIDR)
	}
	if why != "" {
		cause = "cause: " + why
		cites = append(cites, read...)
	}
	return c.Fail(summary, cites...).
		With("expected: network "+plan.name+" (from "+plan.source+")", "actual: "+netList(nets), cause,
			"fix the cause, then re-run start.ps1; note that its CleanupOldNetwork removes the HNS network and force-removes ALL containers")
}

func (c C) waitCause(podCIDR string) string {
	if podCIDR == "" {
		return "node spec.podCIDR is empty, so the kubelet start script cannot create the network (NODE-PODCIDR: kube-controller-manager without --allocate-node-cidrs=true)"
	}
	svcs, _ := optional(c, evidence.WindowsServices)
	procs, okp := optional(c, evidence.Processes)
	if okp {
		if st := kubeletComponent().state(svcs, procs); !st.hasProc && (!st.hasSvc || st.svc.Status != "Running") {
			return "the kubelet is not running; start-kubelet.ps1 creates the network before starting it (SVC-KUBELET)"
		}
		if cni, ok := optional(c, evidence.CNIConfig); ok && strings.EqualFold(cni.Type, "flannel") {
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
