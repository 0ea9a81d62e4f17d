package probes

import (
	"cmp"
	"slices"
	"strings"
)

// Ref names one finding: a probe's judgement of a node ("" for cluster-wide).
type Ref struct {
	Probe string `json:"probe"`
	Node  string `json:"node"`
}

// Ref is the finding's name in causal links.
func (f Finding) Ref() Ref { return Ref{Probe: f.Probe, Node: f.Node} }

// String is "NODE-PODCIDR on win-1".
func (r Ref) String() string {
	if r.Node == "" {
		return r.Probe + " (cluster-wide)"
	}
	return r.Probe + " on " + r.Node
}

// Where says which node a cause may be on, relative to its effect.
type Where int

const (
	SameNode  Where = iota // the cause is judged on the effect's node
	OtherNode              // the cause is on another node (a peer's podCIDR, a route to it)
)

// CauseRule is one known causal link: Cause failing (at CauseAt or worse) explains Effect
// not passing. Effect "*" is every other finding of the node. When, if set, must also
// hold of the pair (it reads the findings only, never evidence: the link is a judgement
// about judgements).
type CauseRule struct {
	Cause   string
	CauseAt Status
	Effect  string
	Where   Where
	When    func(cause, effect Finding) bool
	Why     string
}

// AnyProbe as a rule's Effect matches every other probe of the node.
const AnyProbe = "*"

// Matches says whether the rule links cause to effect.
func (r CauseRule) Matches(cause, effect Finding) bool {
	if cause.Probe != r.Cause || cause.Status < r.CauseAt || effect.Status < Warn {
		return false
	}
	if r.Effect != AnyProbe && effect.Probe != r.Effect || effect.Ref() == cause.Ref() {
		return false
	}
	if (r.Where == SameNode) != (cause.Node == effect.Node) {
		return false
	}
	return r.When == nil || r.When(cause, effect)
}

// CauseRules is the one table of causal links between probes. It lives here rather than
// in each probe's file because a link is about two probes at once, and because one table
// is what the cycle test walks. Each link was checked against the scenario that shows it
// (fixtures/scenarios/<name>, named in Why's comment).
func CauseRules() []CauseRule {
	same := func(cause, effect, why string) CauseRule {
		return CauseRule{Cause: cause, CauseAt: Fail, Effect: effect, Where: SameNode, Why: why}
	}
	return []CauseRule{
		// An unreachable node: nothing else about it can be trusted (probes that read only
		// cluster evidence still judge it).
		{Cause: ReachID, CauseAt: Error, Effect: AnyProbe, Where: SameNode,
			Why: "the node could not be reached, so its other checks judged nothing current"},
		// podcidr-empty: start-kubelet.ps1 waits for a podCIDR before creating l2bridge.
		same("NODE-PODCIDR", "HNS-NETWORK", "the pod network is created from the node's podCIDR"),
		// podcidr-empty, waiting-for-network: kube-proxy and AddRoutes.ps1 wait for the network.
		same("HNS-NETWORK", "HNS-KPROXY-NET", "kube-proxy's network does not exist yet"),
		same("HNS-NETWORK", "SVC-KUBEPROXY", "start-kubeproxy.ps1 waits for the pod network"),
		same("HNS-NETWORK", "NET-ROUTES", "routes to peer pod CIDRs are added once the pod network exists"),
		// waiting-for-network: New-HNSNetwork failed in start-kubelet.ps1 before the kubelet started.
		same("HNS-NETWORK", "SVC-KUBELET", "start-kubelet.ps1 creates the pod network before starting the kubelet"),
		// A peer without a podCIDR has no route to be added for it.
		{Cause: "NODE-PODCIDR", CauseAt: Fail, Effect: "NET-ROUTES", Where: OtherNode,
			When: mentionsNode, Why: "the peer has no pod CIDR to route to"},
		// kubelet-service-stopped, reboot-services-stopped, waiting-for-network.
		same("SVC-KUBELET", "NODE-READY", "the kubelet posts the node's status"),
		// kube-proxy-network-service: kube-proxy unhealthy shows as a node condition.
		same("HNS-KPROXY-NET", "NODE-READY", "kube-proxy cannot start on a network that does not exist"),
		// reboot-services-stopped: Manual services stay stopped after the reboot.
		same("SVC-REBOOT", "SVC-KUBELET", "the kubelet is not set to start after a reboot"),
		same("SVC-REBOOT", "SVC-KUBEPROXY", "kube-proxy is not set to start after a reboot"),
		same("SVC-REBOOT", "SVC-RUNTIME", "the container runtime is not set to start after a reboot"),
		same("SVC-REBOOT", "NODE-READY", "the node's services did not come back after the reboot"),
		// reboot-services-stopped: with containerd down crictl can list nothing.
		same("SVC-RUNTIME", "IMG-PAUSE", "the runtime is down, so its images cannot be listed"),
		same("SVC-RUNTIME", "IMG-PAUSE-BUILD", "the runtime is down, so its images cannot be listed"),
		same("SVC-RUNTIME", "RUNTIME-LEFTOVERS", "the runtime is down, so its containers cannot be listed"),
		// pause-nanoserver-untagged, pause-build-mismatch: every pod needs its sandbox image.
		same("IMG-PAUSE", "POD-IMAGE-BUILD", "pods cannot start without the pause (sandbox) image"),
		same("IMG-PAUSE-BUILD", "POD-IMAGE-BUILD", "the sandbox image is built for another Windows build"),
		// leftover-containers: a sandbox the runtime kept after its pod was deleted keeps
		// its HNS endpoint too (kubernetes/kubernetes#68511, microsoft/Windows-Containers#631).
		same("RUNTIME-LEFTOVERS", "HNS-ENDPOINTS", "the leftover sandboxes still hold their HNS endpoints"),
		// layout-kubeadm-kube-proxy-crashloop: kube-proxy exits when its KUBE_NETWORK
		// names no HNS network, and the DaemonSet restarts it (CrashLoopBackOff).
		same("HNS-KPROXY-NET", "SVC-KUBEPROXY", "kube-proxy exits when the network it is told to use does not exist"),
		// taint-missing-linux-pods: without the taint Linux pods land here and fail.
		same("NODE-TAINT", "POD-IMAGE-BUILD", "without the os=windows taint Linux pods are scheduled here"),
		// mixed-hardway-route-missing: the Linux worker's missing route to win-1's pods is
		// what breaks win-1's way back (NET-ROUTES' reverse path names the worker, and
		// LINUX-ROUTES names win-1).
		{Cause: "LINUX-ROUTES", CauseAt: Fail, Effect: "NET-ROUTES", Where: OtherNode, When: namesEachOther,
			Why: "the Linux worker has no route to this node's pods, so replies to them never come back"},
		// flanneld-stopped: flanneld creates the flannel network (HNS-NETWORK names it);
		// flannel-source-vip-stale: the load balancers use kube-proxy's stale source VIP.
		{Cause: "FLANNEL-STATE", CauseAt: Fail, Effect: "HNS-NETWORK", Where: SameNode, When: bothSay("flanneld is not running"),
			Why: "flanneld creates the pod network on flannel nodes"},
		{Cause: "FLANNEL-STATE", CauseAt: Fail, Effect: "SVC-LB-POLICY", Where: SameNode, When: bothSay("source VIP"),
			Why: "kube-proxy programs its load balancers with the source VIP it was given"},
		// mixed-hardway-swap-on: the kubelet exits at start with swap on (failSwapOn).
		{Cause: "LINUX-SWAP", CauseAt: Fail, Effect: "LINUX-SERVICES", Where: SameNode, When: mentions("kubelet"),
			Why: "the kubelet refuses to start while swap is on"},
		// clock-skew-node-behind: a node clock behind the signer's sees new certificates begin later.
		{Cause: "CLOCK-SKEW", CauseAt: Fail, Effect: "KUBELET-CERTS", Where: SameNode, When: mentions("not yet valid"),
			Why: "the node's clock is behind the API server's, so certificates signed now begin after it"},
		// kubelet-client-cert-expired: the API server refuses the kubelet's expired certificate.
		{Cause: "KUBELET-CERTS", CauseAt: Fail, Effect: "NODE-READY", Where: SameNode,
			When: func(cause, _ Finding) bool { return strings.Contains(cause.Summary, "client certificate") },
			Why:  "the API server refuses the kubelet's client certificate, so it cannot post the node's status"},
	}
}

// namesEachOther: each finding's text names the other's node.
func namesEachOther(cause, effect Finding) bool {
	return mentionsNode(cause, effect) && mentionsNode(effect, cause)
}

// mentions is a When that holds when the effect's summary names what.
func mentions(what string) func(cause, effect Finding) bool {
	return func(_, effect Finding) bool { return strings.Contains(effect.Summary, what) }
}

// bothSay is a When that holds when the cause's and the effect's text (summary or a
// detail line) both name what: the two findings are about the same thing.
func bothSay(what string) func(cause, effect Finding) bool {
	says := func(f Finding) bool {
		return slices.ContainsFunc(append([]string{f.Summary}, f.Details...), func(s string) bool { return strings.Contains(s, what) })
	}
	return func(cause, effect Finding) bool { return says(cause) && says(effect) }
}

// mentionsNode says whether the effect's text names the cause's node.
func mentionsNode(cause, effect Finding) bool {
	if cause.Node == "" {
		return false
	}
	return slices.ContainsFunc(append([]string{effect.Summary}, effect.Details...), func(s string) bool {
		return strings.Contains(s, cause.Node)
	})
}

// Graph is the causal graph of one run's findings, read from their CausedBy links.
type Graph struct {
	byRef   map[Ref]Finding
	effects map[Ref][]Ref // cause -> the findings it explains, in finding order
}

// NewGraph indexes findings by their CausedBy links. Links to findings not in the set are
// ignored, so a filtered report never points at what it does not show.
func NewGraph(fs []Finding) Graph {
	g := Graph{byRef: map[Ref]Finding{}, effects: map[Ref][]Ref{}}
	for _, f := range fs {
		g.byRef[f.Ref()] = f
	}
	for _, f := range fs {
		for _, c := range f.CausedBy {
			if _, ok := g.byRef[c]; ok && !slices.Contains(g.effects[c], f.Ref()) {
				g.effects[c] = append(g.effects[c], f.Ref())
			}
		}
	}
	return g
}

// IsRoot says whether a finding that is not a pass has no known cause among the findings.
func (g Graph) IsRoot(f Finding) bool {
	if f.Status < Warn {
		return false
	}
	for _, c := range f.CausedBy {
		if _, ok := g.byRef[c]; ok {
			return false
		}
	}
	return true
}

// Causes lists the shown findings that explain f.
func (g Graph) Causes(f Finding) []Ref {
	var out []Ref
	for _, c := range f.CausedBy {
		if _, ok := g.byRef[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// Clears lists everything fixing r should also clear: its consequences, transitively,
// each once, breadth first, so the nearest come first.
func (g Graph) Clears(r Ref) []Ref {
	seen := map[Ref]bool{r: true}
	var out []Ref
	queue := []Ref{r}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range g.effects[cur] {
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
				queue = append(queue, e)
			}
		}
	}
	return out
}

// Roots lists the root causes: findings that are not passes and that nothing explains,
// worst first, then by node and probe, so the order never depends on input order.
func (g Graph) Roots() []Finding {
	var out []Finding
	for _, f := range g.byRef {
		if g.IsRoot(f) {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Status, a.Status), strings.Compare(a.Node, b.Node), strings.Compare(a.Probe, b.Probe))
	})
	return out
}

// Get returns the finding a ref names.
func (g Graph) Get(r Ref) (Finding, bool) { f, ok := g.byRef[r]; return f, ok }
