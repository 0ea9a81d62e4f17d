package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// signature is a log line or event message known to come with one failure. Probe names
// the probe whose finding it supports: that probe cites the line as its evidence
// (logSupport), and LOG-SIGNATURES reports it under that probe's ID instead of as a
// failure of its own.
type signature struct {
	id    string
	re    string // case-insensitive
	probe string // the probe it supports; "" when the line is LOG-SIGNATURES' own finding
	// sandbox, when set, is the probe it supports instead when the line is about the
	// pod sandbox (the pause container) rather than a workload container.
	sandbox string
	means   string
	source  string // where the wording comes from, per version where it changed
}

// signatures is the table. Wordings are quoted from the code that prints them.
func signatures() []signature {
	return slices.Concat([]signature{
		{id: "kube-proxy-network-missing", re: `unable to find hns network (?:specified|speficied)|could not get hns network \S+ via v[12] api`, probe: "HNS-KPROXY-NET", // v1.9-v1.12 print "speficied"
			means: "kube-proxy cannot find the HNS network it was told to use: Services do not work on this node",
			source: "kubernetes pkg/proxy/winkernel/proxier.go (every version's wording in signatureWordings): \"Unable to find Hns Network speficied by %s. Please check environment variable KUBE_NETWORK\" (glog, v1.9-v1.12), the same spelled \"specified\" (v1.13-v1.14, kubernetes/kubernetes#79515), " +
				"\"Unable to find HNS Network specified by %s. Please check network name and CNI deployment\" (v1.15-v1.20), " +
				"klog.ErrorS \"Unable to find HNS Network specified. Please check network name and CNI deployment\" (v1.21-v1.24), " +
				"\"Unable to find HNS Network specified, please check network name and CNI deployment\" hnsNetworkName=… (later); " +
				"on RKE2 the rancher/wins wrapper's \"could not get HNS network %s via v2 api: %v\" (pkg/server/apis hnsService.GetNetwork)"},
		{id: "kube-proxy-healthz-failed", re: `healthz server failed`, probe: "SVC-KPROXY-HEALTH",
			means:  "kube-proxy's health server stopped (often: its port is held by another process): health checks of the node fail",
			source: "kubernetes cmd/kube-proxy/app/server.go serveHealthz: klog.ErrorS(err, \"Healthz server failed\") (v1.21+), \"Healthz server failed: %v\" via klog.Errorf before"},
		{id: "cni-plugin-not-found", re: `failed to find plugin .{1,40} in path`, probe: "RUNTIME-CNI",
			means:  "the CNI config names a plugin type whose executable is not in the runtime's CNI bin folder: every new sandbox fails",
			source: "containernetworking/cni pkg/invoke/find.go FindInPath: \"failed to find plugin %q in path %s\""},
		{id: "cni-not-initialized", re: `cni plugin not initialized|cni config uninitialized`, probe: "RUNTIME-CNI",
			means:  "the runtime loaded no CNI config (its conf_dir is empty or unreadable): the node stays NotReady for the network and no sandbox starts",
			source: "containerd go-cni ErrCNINotInitialized (\"no network config found in %s: cni plugin not initialized\"), dockershim \"cni config uninitialized\", as the kubelet's \"Container runtime network not ready\" quotes them"},
		{id: "hns-object-exists", re: `hnsCall failed in Win32: The object already exists\. \(0x1392\)`, probe: "HNS-ENDPOINTS",
			means:  "HNS refused to create or tear down an endpoint because one with that name/IP still exists (ERROR_OBJECT_ALREADY_EXISTS, 5010): a leftover endpoint",
			source: "hcsshim's HNS call error (\"hnsCall failed in Win32: <message> (0x<code>)\", the form microsoft/hcsshim's hcserror prints), as the CNI plugins pass it to the kubelet; winerror.h ERROR_OBJECT_ALREADY_EXISTS = 5010 = 0x1392; endpoint leaks: kubernetes/kubernetes#68511"},
		{id: "hcn-network-exists", re: `0x803b0010`, probe: "HNS-NETWORK",
			means:  "HCN_E_NETWORK_ALREADY_EXISTS: the CNI or flanneld tried to create a network that exists; harmless when the network is then found, else a half-created network",
			source: "Windows SDK computenetwork.h HCN_E_NETWORK_ALREADY_EXISTS 0x803B0010 (CNIs treat it as \"created\")"},
		{id: "ipam-exhausted", re: `no IP addresses available in range set`,
			means:  "host-local IPAM has no free address in the node's range: reservations of pods that are gone hold them (no other probe reads the IPAM store, so this line is the finding)",
			source: "containernetworking/plugins plugins/ipam/host-local/backend/allocator: \"no IP addresses available in range set: %s\""},
		{id: "node-ip-invalid", re: `failed to validate nodeIP`, probe: "NODE-IP",
			means:  "the kubelet's --node-ip is not an address of the host: node status updates fail",
			source: "kubernetes pkg/kubelet/nodestatus/setters.go: \"failed to validate nodeIP: %v\" (node IP: %q not found in the host's network interfaces)"},
		{id: "no-windows-manifest", re: `no matching manifest for windows/amd64 10\.0\.[0-9]+`, probe: "POD-IMAGE-BUILD", sandbox: "IMG-PAUSE-BUILD",
			means:  "the image has no variant for this Windows build (often a Linux-only image scheduled on Windows)",
			source: "Docker's pull error \"no matching manifest for windows/amd64 10.0.17763 in the manifest list entries\" (moby distribution/pull_v2.go); containerd says \"no match for platform in manifest\""},
		{id: "no-platform-match", re: `no match for platform in manifest`, probe: "POD-IMAGE-BUILD", sandbox: "IMG-PAUSE-BUILD",
			means:  "containerd found no image variant for this platform and OS build",
			source: "containerd images/image.go ErrNotFound wrapped as \"no match for platform in manifest\""},
		{id: "os-mismatch", re: `container operating system does not match the host operating system|0xc0370101|image operating system "linux" cannot be used on this platform`, probe: "POD-IMAGE-BUILD", sandbox: "IMG-PAUSE-BUILD",
			means:  "process isolation refuses an image built for another Windows build (HCS_E_IMAGE_MISMATCH)",
			source: "HCS: HCS_E_IMAGE_MISMATCH 0x80370101 / 0xc0370101 \"The container operating system does not match the host operating system.\" (microsoft/hcsshim internal/hcs/errors.go); kubernetes/kubernetes#74066"},
	}, imageSignatures(), nodeSignatures())
}

// noise are lines healthy Windows kubelets print that look like errors: they never count
// as a signature, whatever they contain.
func noise() []string {
	return []string{
		`perfcounter_nodestats`, `unable to collect data from counter`, // kubelet's Windows perf counters (800007d6)
		`/proc/`, `uid 0`, // Linux paths and the root-uid checks the Windows kubelet logs at start
	}
}

// logMatch is one line that matched a signature, with where it was.
type logMatch struct {
	sig  signature
	path string
	text string
}

// file is the evidence name the match was in (kubelet.log, cluster/events.json).
func (m logMatch) file() string {
	if k, ok := evidence.Of(m.path); ok {
		return k.Meta().Name
	}
	return m.path
}

// supports is the probe the match is evidence for.
func (m logMatch) supports() string {
	if m.sig.sandbox != "" && isSandboxLine(m.text) {
		return m.sig.sandbox
	}
	return m.sig.probe
}

func isSandboxLine(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "sandbox") || strings.Contains(l, "pause")
}

// logSupport is what a probe adds to its finding: the matched lines that support it, as
// details, and their paths to cite. At most three lines per signature: the rest repeat.
func logSupport(probe string, ms []logMatch) (details, paths []string) {
	per := map[string]int{}
	for _, m := range ms {
		if m.supports() != probe {
			continue
		}
		per[m.sig.id]++
		if per[m.sig.id] > 3 {
			continue
		}
		details = append(details, fmt.Sprintf("log signature %s in %s: %s (%s)", m.sig.id, m.path, clip(m.text, 300), m.sig.means))
		if !slices.Contains(paths, m.path) {
			paths = append(paths, m.path)
		}
	}
	return details, paths
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
