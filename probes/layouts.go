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
	LayoutWMCO        = "openshift-wmco-ovn"          // OpenShift WMCO, OVN-Kubernetes hybrid overlay, services from C:\k
	LayoutAKSOverlay  = "aks-azure-cni-overlay"       // AKS, Azure CNI Overlay (pod CIDR /24 per node, Azure CNS)
	LayoutEKSBridge   = "eks-containerd17-vpc-bridge" // EKS on containerd 1.7, VPC CNI vpc-bridge
)

// Layout facts the probes share: what a healthy node of each common layout looks like
// when it differs from the SDN-scripts picture. Each names its upstream source.

// hybridOverlaySubnetKey is the node annotation OVN-Kubernetes' hybrid overlay sets on a
// Windows node: its pod subnet, allocated from the hybridClusterNetwork instead of
// spec.podCIDR (openshift/windows-machine-config-operator pkg/nodeconfig/nodeconfig.go
// HybridOverlaySubnet; its kube-proxy service takes its --cluster-cidr from it,
// pkg/services/services.go kubeProxyConfiguration).
const hybridOverlaySubnetKey = "k8s.ovn.org/hybrid-overlay-node-subnet"

// designedSubnet is where a layout without spec.podCIDR keeps the node's pod subnet, as
// the evidence shows it: why (one line for the finding), subnet ("" when the evidence
// does not state it), decided (false for the weaker provider-ID inference).
type designedSubnet struct {
	why, subnet, source string
	decided             bool
}

// subnetByDesign says why a node without spec.podCIDR is healthy, from the evidence of
// its layout, strongest first:
//   - OpenShift's hybrid overlay: the node's hybrid-overlay-node-subnet annotation;
//   - the Amazon VPC CNI (vpc-shared-eni, vpc-bridge): pods take secondary IPs of the
//     node's ENI, handed out by the VPC resource controller (aws/amazon-vpc-cni-plugins);
//   - Azure CNI (azure-vnet): pod IPs come from azure-vnet-ipam or Azure CNS, from the
//     VNet (Azure CNI) or the overlay pod CIDR (Azure CNI Overlay), not from
//     kube-controller-manager (Azure/AgentBaker azurecnifunc.ps1);
//   - Calico IPAM: /26 blocks of its IP pools, not spec.podCIDR (projectcalico/calico
//     cni-plugin install_windows.go, ipam calico-ipam);
//   - else, weaker: no node of the cluster has a podCIDR and the node is an Azure or AWS VM
//     (a hand-built cluster whose kube-controller-manager lacks --allocate-node-cidrs
//     also has none anywhere, but no such providerID).
func (c C) subnetByDesign(nodes []corev1.Node, self corev1.Node) (designedSubnet, bool) {
	if self.Spec.PodCIDR != "" {
		return designedSubnet{}, false
	}
	if sub := self.Annotations[hybridOverlaySubnetKey]; sub != "" {
		return designedSubnet{why: "OVN-Kubernetes' hybrid overlay gives this Windows node its pod subnet in the annotation " + hybridOverlaySubnetKey + "=" + sub +
			", not spec.podCIDR (OpenShift Windows Machine Config Operator)", subnet: sub, source: evidence.PathNodes, decided: true}, true
	}
	if cni, ok := optional(c, evidence.CNIConfig); ok {
		src := c.Path(evidence.CNIConfig)
		switch {
		case isVPCCNI(cni):
			return designedSubnet{why: "the Amazon VPC CNI (" + cni.Type + ") gives pods secondary IPs of the node's ENI, from the VPC subnet; EKS allocates no podCIDRs", source: src, decided: true}, true
		case isAzureCNI(cni):
			return designedSubnet{why: "Azure CNI (azure-vnet) gives pods addresses from its own IPAM (the VNet subnet, or the overlay pod CIDR through Azure CNS), not spec.podCIDR", source: src, decided: true}, true
		case isCalico(cni):
			return designedSubnet{why: "Calico's IPAM hands the node /26 blocks of its IP pools (ipam calico-ipam), not spec.podCIDR", source: src, decided: true}, true
		}
	}
	if src, calico := c.calicoNode(); calico {
		return designedSubnet{why: "Calico's IPAM hands the node /26 blocks of its IP pools, not spec.podCIDR", source: src, decided: true}, true
	}
	for _, n := range nodes {
		if n.Spec.PodCIDR != "" {
			return designedSubnet{}, false
		}
	}
	switch p := strings.ToLower(self.Spec.ProviderID); {
	case strings.HasPrefix(p, "azure://"):
		return designedSubnet{why: "no node of this AKS cluster has a podCIDR: Azure CNI gives pods addresses from the VNet subnet (its HNS network is \"azure\", L2Bridge on the node's subnet)", source: evidence.PathNodes}, true
	case strings.HasPrefix(p, "aws://"):
		return designedSubnet{why: "no node of this EKS cluster has a podCIDR: the Amazon VPC CNI gives pods addresses from the VPC subnet (HNS network vpcbr*, CNI vpc-shared-eni or vpc-bridge on Windows)", source: evidence.PathNodes}, true
	}
	return designedSubnet{}, false
}

// isVPCCNI: the Amazon VPC CNI's Windows plugins, vpc-shared-eni (Start-EKSBootstrap.ps1
// until 2023) and vpc-bridge (the containerd-era bootstrap's vpc-bridge.conf).
func isVPCCNI(cni decode.CNIConfig) bool {
	return strings.EqualFold(cni.Type, "vpc-shared-eni") || strings.EqualFold(cni.Type, "vpc-bridge")
}

// hybridOverlay: the node's pods are on OVN-Kubernetes' hybrid overlay (OpenShift WMCO):
// the network OVNKubernetesHybridOverlayNetwork that WMCO's CNI config names, or the
// node's hybrid-overlay subnet annotation.
func (c C) hybridOverlay() bool {
	if cni, ok := optional(c, evidence.CNIConfig); ok && strings.EqualFold(cni.Name, wmcoNetwork) {
		return true
	}
	_, self, bad := c.clusterNodes()
	return bad == nil && self.Annotations[hybridOverlaySubnetKey] != ""
}

// wmcoNetwork is the HNS network hybrid-overlay-node creates and WMCO's CNI config and
// kube-proxy name (pkg/windows/windows.go OVNKubeOverlayNetwork).
const wmcoNetwork = "OVNKubernetesHybridOverlayNetwork"

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
	nodes, haveNodes := optional(c, evidence.ClusterNodes) // memoized: every probe reads it
	nodes = shownNodes(nodes)
	if aksServices(svcs) {
		return true
	}
	s, ok := decode.FindService(svcs, "kubelet")
	if !ok || s.Name != "Kubelet" || s.AppParameters != "" || !haveNodes {
		return false
	}
	self, err := findNode(c.ev, nodes, c.node)
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
	return []string{LayoutHardWay, LayoutAnthos, LayoutKubeadmHPC, LayoutAKS, LayoutCalicoVXLAN, LayoutCalicoBGP, LayoutAntrea, LayoutRKE2, LayoutEKS,
		LayoutWMCO, LayoutAKSOverlay, LayoutEKSBridge}
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

// manualByDesign says whether the node's services are those of a layout that registers
// them Manual on purpose and starts them itself, who, and what to check instead of the
// start type: AKS (aksServices, the windowsnodereset.ps1 startup task) and OpenShift's
// WMCO, whose windows-instance-config-daemon (itself start=auto, pkg/windows/windows.go)
// creates containerd, kubelet, hybrid-overlay-node and kube-proxy with mgr.Config{} (a
// zero StartType is Manual in x/sys/windows/svc/mgr) and keeps each Running
// (pkg/daemon/controller/controller.go reconcileService).
func (c C) manualByDesign(svcs []decode.Service) (who, startedBy string, ok bool) {
	if c.onAKS(svcs) {
		return "AKS", aksStartedBy, true
	}
	if wmcoServices(svcs) {
		return "WMCO", wmcoStartedBy, true
	}
	return "", "", false
}

// wmcoServices: the kubelet or containerd service runs WMCO's binaries from C:\k (the
// kubelet through C:\k\kube-log-runner.exe, containerd as C:\k\containerd\containerd.exe).
func wmcoServices(svcs []decode.Service) bool {
	for _, name := range []string{"kubelet", "containerd"} {
		if s, ok := decode.FindService(svcs, name); ok {
			p := strings.ToLower(s.PathName)
			if strings.HasPrefix(p, `c:\k\kube-log-runner.exe`) || strings.HasPrefix(p, `c:\k\containerd\containerd.exe`) {
				return true
			}
		}
	}
	return false
}

const wmcoStartedBy = "OpenShift's windows-instance-config-daemon (start=auto) starts WMCO's services at boot and keeps them running: check Get-Service windows-instance-config-daemon and C:\\var\\log\\wicd\\windows-instance-config-daemon.exe.INFO"
