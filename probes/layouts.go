package probes

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// The node layouts the scenarios stand for: a scenario's layout, or its cluster kind for
// the two original ones (fixtures/scenarios/README.md, the layout matrix).
const (
	LayoutHardWay     = "hard-way"                    // microsoft/SDN Kubernetes/windows scripts, Docker, l2bridge
	LayoutAnthos      = "anthos-like"                 // services via nssm, flannel VXLAN vxlan0, containerd
	LayoutKubeadmHPC  = "kubeadm-hostprocess-flannel" // sig-windows-tools kubeadm, HostProcess kube-proxy + flannel
	LayoutAKS         = "aks-azure-cni"               // AKS, Azure CNI (VNet addressing)
	LayoutCalicoVXLAN = "calico-vxlan"                // Calico for Windows VXLAN, HostProcess calico-node-windows
	LayoutCalicoBGP   = "calico-bgp"                  // Calico for Windows windows-bgp: L2Bridge, RRAS (RemoteAccess) BGP router
	LayoutAntrea      = "antrea"                      // Antrea with OVS, HostProcess antrea-agent-windows, no kube-proxy
	LayoutRKE2        = "rke2-calico"                 // RKE2 agent: the rke2 service runs containerd, kubelet, kube-proxy; Calico VXLAN
	LayoutEKS         = "eks-vpc-cni"                 // EKS Windows AMI, VPC CNI (vpc-shared-eni), kubelet/kube-proxy services
)

// Layout facts the probes share: what a healthy node of each common layout looks like
// when it differs from the SDN-scripts picture. Each names its upstream source.

// cidrsByDesign says why a node without spec.podCIDR is healthy: every node of the cluster
// lacks one, and the nodes are Azure or AWS VMs, whose default CNIs (Azure CNI,
// azure-vnet; Amazon VPC CNI, vpc-shared-eni on Windows) give pods addresses from the
// VNet/VPC subnet themselves, so kube-controller-manager allocates no node CIDRs (AKS with
// Azure CNI; EKS). A hand-built cluster whose kube-controller-manager lacks
// --allocate-node-cidrs also has no podCIDRs anywhere, but no such providerID.
func cidrsByDesign(nodes []corev1.Node, self corev1.Node) (string, bool) {
	if self.Spec.PodCIDR != "" {
		return "", false
	}
	for _, n := range nodes {
		if n.Spec.PodCIDR != "" {
			return "", false
		}
	}
	switch p := strings.ToLower(self.Spec.ProviderID); {
	case strings.HasPrefix(p, "azure://"):
		return "no node of this AKS cluster has a podCIDR: Azure CNI gives pods addresses from the VNet subnet (its HNS network is \"azure\", L2Bridge on the node's subnet)", true
	case strings.HasPrefix(p, "aws://"):
		return "no node of this EKS cluster has a podCIDR: the Amazon VPC CNI gives pods addresses from the VPC subnet (HNS network vpcbr*, CNI vpc-shared-eni on Windows)", true
	}
	return "", false
}

// aksServices says whether the node's services are the AKS ones (Azure/AgentBaker
// staging/cse/windows/kubeletfunc.ps1: nssm services Kubelet and Kubeproxy running
// c:\k\kubeletstart.ps1 and c:\k\kubeproxystart.ps1). AKS registers them and containerd
// with Start SERVICE_DEMAND_START (Manual) on purpose: at boot, the startup scheduled task
// running c:\k\windowsnodereset.ps1 cleans the HNS state and then starts them.
func aksServices(svcs []decode.Service) bool {
	s, ok := decode.FindService(svcs, "kubelet")
	return ok && strings.Contains(strings.ToLower(s.AppParameters), `\kubeletstart.ps1`)
}

// onAKS says whether the node's services are AKS's: by their command lines, or, where
// the evidence does not show those (a pasted Get-Service table has no PathName), by
// AgentBaker's service name "Kubelet" on a node whose providerID is azure://.
func (c C) onAKS(svcs []decode.Service) bool {
	nodes, haveNodes := optional(c, evidence.Nodes()) // memoized: every probe reads it
	nodes = shownNodes(nodes)
	if aksServices(svcs) {
		return true
	}
	s, ok := decode.FindService(svcs, "kubelet")
	if !ok || s.Name != "Kubelet" || s.AppParameters != "" || !haveNodes {
		return false
	}
	self, err := decode.FindNode(nodes, c.node)
	return err == nil && strings.HasPrefix(strings.ToLower(self.Spec.ProviderID), "azure://")
}

// aksStartedBy is what a support engineer checks on AKS instead of the service start type.
const aksStartedBy = "AKS starts it at boot from the startup scheduled task that runs c:\\k\\windowsnodereset.ps1 (Azure/AgentBaker), which the sweep does not see: check Get-ScheduledTask | ? { $_.Actions.Arguments -like '*windowsnodereset*' } and c:\\k\\windowsnodereset.log"

// aksKubeNetwork: AgentBaker's kubeproxystart.ps1 sets $env:KUBE_NETWORK = "azure" before
// starting kube-proxy, so the service environment does not show it.
func aksKubeNetwork(s decode.Service) string {
	if strings.Contains(strings.ToLower(s.AppParameters), `\kubeproxystart.ps1`) {
		return "azure"
	}
	return ""
}

// allLayouts is every layout with a healthy scenario: what a probe that judges on all of
// them declares.
func allLayouts() []string {
	return []string{LayoutHardWay, LayoutAnthos, LayoutKubeadmHPC, LayoutAKS, LayoutCalicoVXLAN, LayoutCalicoBGP, LayoutAntrea, LayoutRKE2, LayoutEKS}
}

// layoutsExcept is every layout but the named ones: those whose healthy node the probe
// honestly skips (what it would judge is not there, or not in the evidence).
func layoutsExcept(skip ...string) []string {
	var out []string
	for _, l := range allLayouts() {
		if !slices.Contains(skip, l) {
			out = append(out, l)
		}
	}
	return out
}
