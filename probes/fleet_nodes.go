package probes

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Two judgements of a node against the rest of the fleet, from cluster/nodes.json alone,
// through one index of the list built once per run (a fleet of N nodes costs N lookups).

// fleetIndex groups the nodes by what must be unique and by what should agree.
type fleetIndex struct {
	byIP, byUUID, byMachine map[string][]string // value -> node names
	nodes                   int
}

const fleetIndexMemo = "probes.fleetIndex"

func (c C) fleet(nodes []corev1.Node) fleetIndex {
	return memoized(c.ev.Memo, evidence.PathNodes, fleetIndexMemo, func() fleetIndex {
		ix := fleetIndex{byIP: map[string][]string{}, byUUID: map[string][]string{}, byMachine: map[string][]string{}, nodes: len(nodes)}
		for _, n := range nodes {
			if ip := decode.NodeAddress(n, corev1.NodeInternalIP); ip != "" {
				ix.byIP[ip] = append(ix.byIP[ip], n.Name)
			}
			if u := strings.ToUpper(n.Status.NodeInfo.SystemUUID); u != "" {
				ix.byUUID[u] = append(ix.byUUID[u], n.Name)
			}
			// On Windows the kubelet reports the computer name as the machine ID
			// (pkg/kubelet/winstats: MachineID: os.Hostname()).
			if m := strings.ToUpper(n.Status.NodeInfo.MachineID); m != "" && decode.IsWindows(n) {
				ix.byMachine[m] = append(ix.byMachine[m], n.Name)
			}
		}
		return ix
	})
}

func others(names []string, self string) []string {
	var out []string
	for _, n := range names {
		if n != self {
			out = append(out, n)
		}
	}
	return out
}

// nodeClone (NODE-CLONE): no other node registered this node's InternalIP, system UUID or,
// among Windows nodes, computer name (FM-36): the marks of a VM image cloned without
// sysprep /generalize and without new settings, which gives every copy the template's
// computer name and static address (learn.microsoft.com, "Sysprep (Generalize) a Windows
// installation"), or a VM copied with its BIOS UUID kept. Two nodes on one InternalIP
// split its traffic between two machines; the kubelet's systemUUID (Windows: HKLM\SYSTEM\
// HardwareConfig LastConfig, pkg/kubelet/winstats) is how vSphere's cloud provider and
// CSI driver find a node's VM; one computer name twice breaks domain membership (gMSA).
type nodeClone struct{}

func (nodeClone) Spec() Spec {
	return Spec{ID: "NODE-CLONE", Layouts: allLayouts(),
		Title: "no other node shares this node's InternalIP, system UUID or Windows computer name (a clone without sysprep)",
		FM:    []string{"FM-36"}, Reads: []evidence.Ref{evidence.ClusterNodes}}
}

func (nodeClone) Check(c C) Finding {
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	p := c.Path(evidence.ClusterNodes)
	ix := c.fleet(nodes)
	var fails, warns []string
	if ip := decode.NodeAddress(self, corev1.NodeInternalIP); ip != "" {
		if o := others(ix.byIP[ip], self.Name); len(o) > 0 {
			fails = append(fails, fmt.Sprintf("%s also registered InternalIP %s: two machines answer for one address, so traffic for either node reaches whichever answers ARP (a VM cloned with the template's static address, or one host under two node names)", strings.Join(o, ", "), ip))
		}
	}
	if u := strings.ToUpper(self.Status.NodeInfo.SystemUUID); u != "" {
		if o := others(ix.byUUID[u], self.Name); len(o) > 0 {
			warns = append(warns, fmt.Sprintf("%s reports the same system UUID %s: a VM copied with its BIOS UUID kept; vSphere's cloud provider and CSI driver find a node's VM by it and may attach volumes or addresses to the wrong one", strings.Join(o, ", "), u))
		}
	}
	if m := strings.ToUpper(self.Status.NodeInfo.MachineID); m != "" && decode.IsWindows(self) {
		if o := others(ix.byMachine[m], self.Name); len(o) > 0 {
			warns = append(warns, fmt.Sprintf("%s runs under the same Windows computer name %s (the kubelet's machineID): an image cloned without sysprep /generalize; domain join, gMSA and NetBIOS names conflict", strings.Join(o, ", "), m))
		}
	}
	fix := &Fix{ID: "node-clone", Title: "Give the cloned machine its own identity", Kind: Manual, Verify: c.id,
		Commands: []string{
			"kubectl get nodes -o custom-columns=NAME:.metadata.name,IP:.status.addresses[?(@.type==\"InternalIP\")].address,UUID:.status.nodeInfo.systemUUID,MACHINE:.status.nodeInfo.machineID",
			"# on the copy: drain it (kubectl drain <node> --ignore-daemonsets), then rebuild it from the template with sysprep /generalize /oobe (or its platform's customization: vSphere guest customization, a new VM UUID), its own computer name and address, and join it again",
		}}
	switch {
	case len(fails) > 0:
		return c.Fail(fails[0], p).With(fails[1:]...).With(warns...).WithFix(fix)
	case len(warns) > 0:
		return c.Warn(warns[0], p).With(warns[1:]...).WithFix(fix)
	}
	return c.Pass(fmt.Sprintf("no other of the %d nodes shares its InternalIP, system UUID or computer name", ix.nodes), p)
}

// fleetPatch (FLEET-PATCH): the Windows nodes of one pool run one build and one update
// (FM-37). A pool is its nodes' pool label (AKS kubernetes.azure.com/agentpool, EKS
// eks.amazonaws.com/nodegroup, GKE and Anthos cloud.google.com/gke-nodepool), else every
// Windows node of the same build (node.kubernetes.io/windows-build). The update is the
// UBR in nodeInfo.kernelVersion (10.0.<build>.<UBR>, pkg/kubelet/winstats GetPatchVersion);
// nodes behind their pool's newest update miss its fixes, and a pool on two builds runs
// images only one of them can (POD-IMAGE-BUILD). It warns: drift is a plan to finish, not
// an outage; HOST-KNOWN-BUILD judges whether an update is a bad one.
type fleetPatch struct{}

func (fleetPatch) Spec() Spec {
	return Spec{ID: "FLEET-PATCH", Layouts: allLayouts(),
		Title: "the Windows nodes of this node's pool run one build and its newest update",
		FM:    []string{"FM-37"}, Reads: []evidence.Ref{evidence.ClusterNodes}}
}

// poolLabels name a node pool, most specific first.
func poolLabels() []string {
	return []string{"kubernetes.azure.com/agentpool", "agentpool", "eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name", "cloud.google.com/gke-nodepool"}
}

// poolOf is the node's pool: a label's value, else its Windows build.
func poolOf(n corev1.Node) (key, what string) {
	for _, l := range poolLabels() {
		if v := n.Labels[l]; v != "" {
			return l + "=" + v, "pool " + v + " (" + l + ")"
		}
	}
	b, _, _ := winVersion(n)
	return "build=" + b, "the Windows nodes of build " + b
}

// winVersion splits nodeInfo.kernelVersion "10.0.17763.2628" into build and UBR; ok is
// false when the UBR is missing (older kubelets report 10.0.17763).
func winVersion(n corev1.Node) (build string, ubr int, ok bool) {
	parts := strings.Split(n.Status.NodeInfo.KernelVersion, ".")
	if len(parts) < 3 {
		return n.Labels["node.kubernetes.io/windows-build"], 0, false
	}
	build = strings.Join(parts[:3], ".")
	if len(parts) < 4 {
		return build, 0, false
	}
	u, err := strconv.Atoi(parts[3])
	return build, u, err == nil
}

func (fleetPatch) Check(c C) Finding {
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	p := c.Path(evidence.ClusterNodes)
	build, ubr, ok := winVersion(self)
	if !ok {
		return c.Skip(fmt.Sprintf("%s reports kernelVersion %q without its update (UBR): the pool cannot be compared", c.node, self.Status.NodeInfo.KernelVersion), p).
			With("read the update on the node: (Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion').UBR")
	}
	key, what := poolOf(self)
	pool := poolsOf(c, nodes)[key]
	newest, newestNode := ubr, c.node
	if nb, ok := pool.newest[build]; ok && nb.ubr > newest {
		newest, newestNode = nb.ubr, nb.node
	}
	peers := pool.windows - 1
	var builds []string
	for _, b := range pool.order {
		if b == build {
			continue
		}
		builds = append(builds, pool.onBuild[b]...)
	}
	if len(builds) > 5 {
		builds = append(builds[:5], fmt.Sprintf("and %d more", len(builds)-5))
	}
	if peers == 0 {
		return c.Pass(fmt.Sprintf("the only Windows node of %s: nothing to compare", what), p)
	}
	var warns []string
	if len(builds) > 0 {
		warns = append(warns, fmt.Sprintf("%s mixes Windows builds: this node runs %s.%d, %s; process-isolated images run only on their own build", what, build, ubr, strings.Join(builds, ", ")))
	}
	if newest > ubr {
		warns = append(warns, fmt.Sprintf("this node runs %s.%d, behind %s.%d on %s, the newest update of %s: it lacks the cumulative updates the pool already took", build, ubr, build, newest, newestNode, what))
	}
	if len(warns) == 0 {
		return c.Pass(fmt.Sprintf("%s.%d, the newest update of %s (%d other nodes)", build, ubr, what, peers), p)
	}
	return c.Warn(warns[0], p).With(warns[1:]...).WithFix(&Fix{ID: "fleet-patch", Title: "Bring the node to its pool's update", Kind: Manual, Verify: c.id,
		Commands: []string{
			"kubectl get nodes -l kubernetes.io/os=windows -o custom-columns=NAME:.metadata.name,KERNEL:.status.nodeInfo.kernelVersion",
			"# managed pools: upgrade the node image (az aks nodepool upgrade --node-image-only, a new EKS AMI, a new Anthos template); otherwise drain the node, install the update the pool runs (Windows Update or its .msu), reboot, uncordon",
		},
		Notes: []string{"HOST-KNOWN-BUILD says whether the newer update is a known-bad one before the rest follow"}})
}

// fleetPool is one pool's Windows nodes, summarized once per run so each node's judgement
// is constant time (a fleet of one pool made it quadratic): the newest update per build,
// and the nodes on each build as the finding names them (at most 6 per build).
type fleetPool struct {
	windows int
	order   []string // builds in node-list order
	onBuild map[string][]string
	newest  map[string]struct {
		ubr  int
		node string
	}
}

const fleetPoolsMemo = "probes.fleetPools"

func poolsOf(c C, nodes []corev1.Node) map[string]*fleetPool {
	build := func() map[string]*fleetPool {
		out := map[string]*fleetPool{}
		for _, n := range nodes {
			if !decode.IsWindows(n) {
				continue
			}
			k, _ := poolOf(n)
			p := out[k]
			if p == nil {
				p = &fleetPool{onBuild: map[string][]string{}, newest: map[string]struct {
					ubr  int
					node string
				}{}}
				out[k] = p
			}
			p.windows++
			b, u, ok := winVersion(n)
			if _, seen := p.onBuild[b]; !seen {
				p.order = append(p.order, b)
			}
			if len(p.onBuild[b]) < 6 {
				p.onBuild[b] = append(p.onBuild[b], fmt.Sprintf("%s on %s", n.Name, n.Status.NodeInfo.KernelVersion))
			}
			if cur, have := p.newest[b]; ok && (!have || u > cur.ubr) {
				p.newest[b] = struct {
					ubr  int
					node string
				}{u, n.Name}
			}
		}
		return out
	}
	if !sameList(c.ev, evidence.ClusterNodes, nodes) {
		return build()
	}
	return memoized(c.ev.Memo, evidence.PathNodes, fleetPoolsMemo, build)
}
