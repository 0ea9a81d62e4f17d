package evidence

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Cluster evidence paths: API objects as JSON, exactly as `kubectl get ... -o json` prints
// them, and the address plan the collector works out.
const (
	PathNodes         = "cluster/nodes.json"
	PathServices      = "cluster/services.json"
	PathPods          = "cluster/pods.json"
	PathEvents        = "cluster/events.json"
	PathDaemonSets    = "cluster/daemonsets.json"
	PathClusterConfig = "cluster/cluster-config.json"
)

// Node evidence file names: what one node snippet printed, verbatim, stored at
// nodes/<node>/<name>; the snippet is collect/scripts/snippets/<name>.ps1.
const (
	FileHost             = "host.json"
	FileServices         = "services.json"
	FileProcesses        = "processes.json"
	FileHNSNetworks      = "hns-networks.json"
	FileRoutes           = "routes.json"
	FileIPAddresses      = "ip-addresses.json"
	FileImages           = "images.json"
	FileContainers       = "containers.json"
	FileCNIConfig        = "cni-config.json"
	FileContainerdConfig = "containerd-config.toml"
	FileKubeletConfig    = "kubelet-config.json"
	FileKubeProxyLog     = "kube-proxy.log"
	FileKubeletLog       = "kubelet.log"
)

// clusterKeys are the cluster keys, in table order.
func clusterKeys() []Ref {
	return []Ref{ClusterNodes, ClusterServices, Pods, Events, DaemonSets, ClusterConfig, EndpointSlices, NodeLeases}
}

// ClusterNodes is cluster/nodes.json.
var ClusterNodes Key[[]corev1.Node] = ClusterKey(PathNodes, decode.Nodes, Meta{
	Command: "`kubectl get nodes -o json`",
	Format:  "kubectl List of Node (or one Node from `kubectl get node NAME -o json`)",
})

// ClusterServices is cluster/services.json.
var ClusterServices Key[[]corev1.Service] = ClusterKey(PathServices, decode.Services, Meta{
	Command: "`kubectl get services -A -o json`",
	Format:  "List of Service; must include `kube-system/kube-dns` and `default/kubernetes`",
})

// Pods is cluster/pods.json.
var Pods Key[[]corev1.Pod] = ClusterKey(PathPods, decode.Pods, Meta{
	Command: "`kubectl get pods -A -o json --field-selector spec.nodeName=<win-node>`",
	Format:  "List of Pod (pods on the Windows nodes; a full list is fine)",
})

// Events is cluster/events.json.
var Events Key[[]corev1.Event] = ClusterKey(PathEvents, decode.Events, Meta{
	Command: "`kubectl get events -A -o json`",
	Format:  "List of Event",
})

// DaemonSets is cluster/daemonsets.json.
var DaemonSets Key[[]appsv1.DaemonSet] = ClusterKey(PathDaemonSets, decode.DaemonSets, Meta{
	Command: "`kubectl -n kube-system get daemonsets -o json`",
	Format:  "List of DaemonSet",
})

// ClusterConfig is cluster/cluster-config.json.
var ClusterConfig Key[clusterconfig.Config] = ClusterKey(PathClusterConfig, clusterconfig.Decode, Meta{
	Command: "what the collector works out, most authoritative source first: `serviceCIDR` and `clusterCIDR` from `kubectl -n kube-system get configmap kubeadm-config -o jsonpath='{.data.ClusterConfiguration}'` (`networking.serviceSubnet`, `networking.podSubnet`); else `clusterCIDR` from `kubectl -n kube-system get configmap kube-proxy -o yaml` (`clusterCIDR`) and `serviceCIDR` from `kubectl get servicecidrs -o jsonpath='{.items[*].spec.cidrs}'` (Kubernetes ≥ 1.33); else both inferred as lower bounds from `default/kubernetes` and the other Service ClusterIPs, and from the nodes' podCIDRs. `kubeDNS` is `kubectl -n kube-system get service kube-dns -o jsonpath='{.spec.clusterIP}'`. By hand: the values of kube-apiserver `--service-cluster-ip-range` and kube-controller-manager `--cluster-cidr`",
	Format:  "one object `{\"serviceCIDR\", \"clusterCIDR\", \"kubeDNS\", \"sources\": {key: where it came from}}` (`evidence/clusterconfig`). A source starting with `inferred` is a lower bound; any other source, or none (a hand-written file without `sources`), is authoritative. A CIDR field may hold an IPv4 and an IPv6 range, comma-separated",
})
