package probes

// imageSignatures are the node-problem-detector's Windows containerd patterns
// (kubernetes/node-problem-detector config/windows-containerd-monitor-filelog.json, which
// watches C:\etc\kubernetes\logs\containerd.log and reports each as a "temporary"
// problem with the reason named below), plus the pull-time form of the first. Each is a
// layer of an image the runtime cannot unpack: only removing the image and pulling it
// again helps, which IMG-LAYERS says, naming the image.
func imageSignatures() []signature {
	return []signature{
		{id: "image-layer-diff-id", probe: "IMG-LAYERS",
			re:    `failed to create containerd container.*error unpacking image.*wrong diff id calculated on extraction`,
			means: "a layer of the container's image unpacked to other bytes than its manifest's diff ID: the stored layer is corrupt (NPD reason ContainerCreationFailed)",
			source: "node-problem-detector windows-containerd-monitor-filelog.json rule ContainerCreationFailed (the pattern verbatim); containerd pkg/cri container_create.go \"failed to create containerd container: %w\", " +
				"pkg/cri/opts WithNewSnapshot \"error unpacking image: %w\", the unpacker's \"wrong diff id calculated on extraction %q\""},
		{id: "image-layer-diff-id-pull", probe: "IMG-LAYERS",
			re:     `failed to pull and unpack image.*wrong diff id calculated on extraction`,
			means:  "a pulled layer unpacked to other bytes than its manifest's diff ID: the download or the stored blob is corrupt",
			source: "containerd pkg/cri image_pull.go \"failed to pull and unpack image %q: %w\" wrapping the unpacker's \"wrong diff id calculated on extraction %q\" (the same check as NPD's ContainerCreationFailed, at pull time)"},
		{id: "image-layer-bad-tar", probe: "IMG-LAYERS",
			re:     `failed to pull and unpack image.*failed to extract layer.*archive/tar: invalid tar header`,
			means:  "a layer blob is not a valid tar stream: a truncated or corrupt download in the content store (NPD reason CorruptContainerImageLayer)",
			source: "node-problem-detector windows-containerd-monitor-filelog.json rule CorruptContainerImageLayer (the pattern verbatim); containerd \"failed to extract layer %s: %w\"; Go archive/tar ErrHeader \"archive/tar: invalid tar header\""},
		// NPD's pattern has '\x00', which its Go regexp reads as a NUL byte; the runtime
		// prints Go's json error, whose quoteChar writes the four characters \x00, and
		// logrus doubles the backslash inside msg="..." (kubernetes/kubernetes#78139 quotes
		// '\\x00'). Both forms match here.
		{id: "hcs-empty-layerchain", probe: "IMG-LAYERS",
			re:    `Failed to unmarshall layerchain json - invalid character '(?:\\{1,4}x00|\x00)' looking for beginning of value`,
			means: "a layer's layerchain.json is filled with NUL bytes (written but never flushed, e.g. a crash during the pull): every container of that image fails (NPD reason HCSEmptyLayerchain)",
			source: "node-problem-detector windows-containerd-monitor-filelog.json rule HCSEmptyLayerchain; moby daemon/graphdriver/windows getLayerChain \"Failed to unmarshall layerchain json - %s\"; " +
				"kubernetes/kubernetes#78139 (\"once a node ran into this issue for a certain image, it'd no longer be able to create containers using that image\")"},
	}
}

// nodeSignatures are the lines of the kubelet's own Windows settings and of the SDN
// scripts: resolv.conf (FM-24), port-forward's wincat (FM-25), the management adapter
// (FM-16, last).
func nodeSignatures() []signature {
	return []signature{
		{id: "resolv-conf-missing", probe: "KUBELET-RESOLV",
			re:    `open \S*resolv\.conf: The system cannot find the (?:file|path) specified|Unexpected resolver config value`,
			means: "the kubelet's --resolv-conf names a file Windows does not have: every pod sandbox fails to get its DNS config",
			source: "kubernetes pkg/kubelet/network/dns dns.go getHostDNSConfig os.Open(c.ResolverConfig) (every version before v1.27; the error is Windows' \"The system cannot find the file specified.\"), " +
				"dns_windows.go (v1.27+, kubernetes/kubernetes#110566 and #116800) \"Unexpected resolver config value: %q. Expected \\\"\\\", %q, or a path to an existing resolv.conf file.\"; " +
				"kuberuntime_sandbox.go \"Failed to generate sandbox config for pod\" and the FailedCreatePodSandBox event"},
		// "unable to do port forwarding: wincat not found" is the wording of the Kubernetes
		// Windows troubleshooting page (kubernetes/website windows.md); no Windows code prints
		// it (dockershim's Linux port-forward says "socat not found"). What the runtimes
		// print is their failed exec of "wincat.exe 127.0.0.1 <port>" in the sandbox.
		{id: "wincat-missing", probe: "IMG-PAUSE",
			re: `wincat not found|wincat\.exe.{0,300}(?:cannot find the file specified|executable file not found)|` +
				`(?:cannot find the file specified|\(0x2\)).{0,300}wincat\.exe|failed to execute port forward in sandbox.{0,300}cannot find the file specified|` +
				`error forwarding port [0-9]+ to pod .{0,160}Error executing in Docker Container: 126`,
			means: "kubectl port-forward runs wincat.exe inside the pod's pause container, and this pause image has none",
			source: "kubernetes dockershim docker_streaming_windows.go and containerd pkg/cri sandbox_portforward_windows.go exec {\"wincat.exe\", \"127.0.0.1\", port} in the sandbox " +
				"(kubernetes/kubernetes#75479, v1.15); containerd wraps it \"failed to execute port forward in sandbox: %s: %w\"; Docker's CreateProcess error and the kubelet's \"Error executing in Docker Container: 126\" (aws/containers-roadmap#1104, rancher/rancher#32577)"},
		{id: "mgmt-adapter-missing", probe: "HNS-NETWORK",
			re:     `Failed to find a suitable network adapter`,
			means:  "the node scripts found no vEthernet (<InterfaceName>*) adapter: the HNS network was never created on the host NIC, or the NIC is not named as the scripts expect",
			source: "microsoft/SDN Kubernetes/windows/helper.psm1 Get-MgmtSubnet / Get-MgmtIpAddress throw \"Failed to find a suitable network adapter, check your network settings.\"; kubernetes cluster/gce/windows k8s-node-setup.psm1 Get_MgmtNetAdapter (the same text)"},
	}
}
