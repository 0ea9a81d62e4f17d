package probes

import "maps"

// wording is one way a signature's line was printed: by which version of which program,
// as the line appears in its log (klog header included where it has one), and where the
// wording is quoted from. TestSignatureWordings holds every signature to every wording
// here: a regexp that misses one version's wording misses that version's nodes.
type wording struct {
	version string
	line    string
	source  string
}

// signatureWordings are the wordings per signature ID, oldest first.
func signatureWordings() map[string][]wording {
	k8sWinkernel := "kubernetes pkg/proxy/winkernel/proxier.go"
	out := map[string][]wording{
		"kube-proxy-network-missing": {
			{"kube-proxy v1.9-v1.12 (glog, the typo as printed)",
				`F0312 10:01:02.000000    4242 proxier.go:522] Unable to find Hns Network speficied by cbr0. Please check environment variable KUBE_NETWORK`,
				k8sWinkernel + ` glog.Fatalf("Unable to find Hns Network speficied by %s. Please check environment variable KUBE_NETWORK")`},
			{"kube-proxy v1.13-v1.14 (klog)",
				`F0312 10:01:02.000000    4242 proxier.go:522] Unable to find Hns Network specified by cbr0. Please check environment variable KUBE_NETWORK`,
				k8sWinkernel + ` klog.Fatalf("Unable to find Hns Network specified by %s. Please check environment variable KUBE_NETWORK")`},
			{"kube-proxy v1.15-v1.20",
				`E0312 10:01:02.000000    4242 proxier.go:627] Unable to find HNS Network specified by cbr0. Please check network name and CNI deployment`,
				k8sWinkernel + ` klog.Errorf("Unable to find HNS Network specified by %s. Please check network name and CNI deployment")`},
			{"kube-proxy v1.21-v1.24 (structured)",
				`E0312 10:01:02.000000    4242 proxier.go:645] "Unable to find HNS Network specified. Please check network name and CNI deployment" err="hns network cbr0 not found" hnsNetworkName="cbr0"`,
				k8sWinkernel + ` klog.ErrorS(err, "Unable to find HNS Network specified. Please check network name and CNI deployment", "hnsNetworkName", ...)`},
			{"kube-proxy v1.25+ (structured)",
				`E0312 10:01:02.000000    4242 proxier.go:660] "Unable to find HNS Network specified, please check network name and CNI deployment" err="hns network cbr0 not found" hnsNetworkName="cbr0"`,
				k8sWinkernel + ` klog.ErrorS(err, "Unable to find HNS Network specified, please check network name and CNI deployment", "hnsNetworkName", ...)`},
			{"RKE2 (rancher/wins, the HNS lookup it wraps)",
				`time="2024-05-02T10:01:02Z" level=error msg="could not get HNS network Calico via v2 api: Network name \"Calico\" not found"`,
				`rancher/wins pkg/server/apis hnsService.GetNetwork: status.Errorf(codes.InvalidArgument, "could not get HNS network %s via v2 api: %v", ...)`},
		},
		"ipam-exhausted": {
			{"kubelet <= v1.23 with dockershim",
				`E0308 10:14:40.118203    2904 remote_runtime.go:116] RunPodSandbox from runtime service failed: rpc error: code = Unknown desc = failed to set up sandbox container "3f1c" network for pod "web-1": networkPlugin cni failed to set up pod "web-1_default" network: failed to allocate for range 0: no IP addresses available in range set: 10.244.2.2-10.244.2.254`,
				"kubernetes pkg/kubelet/dockershim/docker_sandbox.go (\"failed to set up sandbox container %q network for pod %q: %v\") and network/cni (\"networkPlugin cni failed to set up pod %q network: %v\")"},
			{"kubelet v1.20+ with containerd 1.6+ (structured)",
				`E0308 10:14:40.118203    2904 remote_runtime.go:209] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox \"3f1c\": plugin type=\"win-overlay\" name=\"flannel.4096\" failed (add): failed to allocate for range 0: no IP addresses available in range set: 10.244.2.2-10.244.2.254"`,
				"kubernetes pkg/kubelet/cri/remote/remote_runtime.go klog.ErrorS(err, \"RunPodSandbox from runtime service failed\"); containerd pkg/cri sandbox_run.go \"failed to setup network for sandbox %q: %w\"; go-cni \"plugin type=%q name=%q failed (add): %w\""},
			{"the FailedCreatePodSandBox event",
				`FailedCreatePodSandBox: Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "3f1c": plugin type="win-overlay" failed (add): failed to allocate for range 0: no IP addresses available in range set: 10.244.2.2-10.244.2.254`,
				"kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go: event FailedCreatePodSandBox \"Failed to create pod sandbox: %v\""},
		},
		"cni-plugin-not-found": {
			{"kubelet <= v1.23 with dockershim",
				`E0308 10:14:40.118203    2904 cni.go:364] Error adding default_web-1/3f1c to network win-overlay/cbr0: failed to find plugin "win-overlay" in path [C:\k\cni]`,
				"kubernetes pkg/kubelet/dockershim/network/cni/cni.go \"Error adding %s to network %s/%s: %v\"; containernetworking/cni pkg/invoke/find.go"},
			{"kubelet v1.20+ with containerd 1.6+",
				`E0308 10:14:40.118203    2904 remote_runtime.go:209] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox \"3f1c\": plugin type=\"flannel\" failed (add): failed to delegate add: failed to find plugin \"win-overlay\" in path [C:\\opt\\cni\\bin]"`,
				"containernetworking/cni pkg/invoke/find.go FindInPath \"failed to find plugin %q in path %s\", through flannel's delegate and go-cni"},
		},
		"cni-not-initialized": {
			{"kubelet <= v1.20",
				`E0308 10:14:40.118203    2904 kubelet.go:2163] Container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized`,
				"kubernetes pkg/kubelet/kubelet.go klog.Errorf(\"Container runtime network not ready: %v\"); containerd go-cni ErrCNINotInitialized"},
			{"kubelet v1.21+ (structured)",
				`E0308 10:14:40.118203    2904 kubelet.go:2855] "Container runtime network not ready" networkReady="NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"`,
				"kubernetes pkg/kubelet/kubelet.go klog.ErrorS(nil, \"Container runtime network not ready\", \"networkReady\", ...)"},
			{"kubelet with dockershim",
				`E0308 10:14:40.118203    2904 kubelet.go:2163] Container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:docker: network plugin is not ready: cni config uninitialized`,
				"kubernetes pkg/kubelet/dockershim/network/cni/cni.go \"cni config uninitialized\""},
			{"containerd on Windows (ctr, the CRI plugin's log)",
				`no network config found in C:\Program Files\containerd\cni\conf: cni plugin not initialized`,
				"containerd go-cni: \"no network config found in %s: %w\" wrapping ErrCNINotInitialized"},
		},
		"os-mismatch": {
			{"HCS (hcsshim), Docker and containerd alike",
				`Error response from daemon: hcsshim::CreateComputeSystem 3f1c: The container operating system does not match the host operating system.`,
				"microsoft/hcsshim internal/hcs/errors.go ErrVmcomputeOperatingSystemMismatch / HCS_E_IMAGE_MISMATCH"},
			{"containerd 1.6+ (the HRESULT in hex)",
				`E0308 10:14:40.118203    2904 remote_runtime.go:209] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem 3f1c: The container operating system does not match the host operating system.: unknown"`,
				"containerd runhcs shim wrapping hcsshim's error (kubernetes/kubernetes#74066)"},
			{"HCS event log",
				`Failed to start the container '3f1c': The container operating system does not match the host operating system. (0xc0370101).`,
				"Hyper-V-Compute Admin event, ERROR_VMCOMPUTE_IMAGE_MISMATCH 0xC0370101 (golang.org/x/sys/windows zerrors)"},
			{"Docker on Windows, a Linux image",
				`docker: image operating system "linux" cannot be used on this platform.`,
				"moby daemon (image OS check on Windows); the message users report from docker run/pull"},
		},
		"no-windows-manifest": {
			{"Docker (moby distribution/pull_v2.go)",
				`Failed to pull image "nginx": rpc error: code = Unknown desc = no matching manifest for windows/amd64 10.0.17763 in the manifest list entries`,
				"moby distribution/pull_v2.go \"no matching manifest for %s in the manifest list entries\""},
		},
		"no-platform-match": {
			{"containerd 1.x and 2.x",
				`Failed to pull image "nginx": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:latest": no match for platform in manifest: not found`,
				"containerd images/image.go: errdefs.ErrNotFound wrapped \"no match for platform in manifest\""},
		},
		"hns-object-exists": {
			{"win-bridge/win-overlay through the kubelet (any version)",
				`E0308 10:14:40.118203    2904 remote_runtime.go:209] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox \"3f1c\": plugin type=\"win-bridge\" failed (add): hnsCall failed in Win32: The object already exists. (0x1392)"`,
				"microsoft/hcsshim hnsCall error \"hnsCall failed in Win32: %s (0x%x)\"; the message is the system's text for ERROR_OBJECT_ALREADY_EXISTS (5010 = 0x1392), in English here (it is localized)"},
		},
		"hcn-network-exists": {
			{"flanneld / CNI through HCN (any version)",
				`E0308 10:14:40.118203    2904 vxlan_network_windows.go:120] hcnCreateNetwork failed in Win32: <system message> (0x803b0010)`,
				"microsoft/hcsshim hcn error \"%s failed in Win32: %s (0x%x)\"; only the HRESULT is matched, the message text is localized"},
		},
		"node-ip-invalid": {
			{"kubelet <= v1.20",
				`E0308 10:14:40.118203    2904 kubelet_node_status.go:586] Failed to set some node status fields: failed to validate nodeIP: node IP: "10.0.0.9" not found in the host's network interfaces`,
				"kubernetes pkg/kubelet/kubelet_node_status.go \"Failed to set some node status fields: %s\"; nodestatus/setters.go \"failed to validate nodeIP: %v\""},
			{"kubelet v1.21+ (structured)",
				`E0308 10:14:40.118203    2904 kubelet_node_status.go:603] "Failed to set some node status fields" err="failed to validate nodeIP: node IP: \"10.0.0.9\" not found in the host's network interfaces" node="win-1"`,
				"kubernetes pkg/kubelet/kubelet_node_status.go klog.ErrorS(err, \"Failed to set some node status fields\", \"node\", ...)"},
		},
		"kube-proxy-healthz-failed": {
			{"kube-proxy <= v1.20",
				`E0301 07:31:22.061234    3120 server.go:598] healthz server failed: listen tcp 0.0.0.0:10256: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.`,
				"kubernetes cmd/kube-proxy/app/server.go serveHealthz: klog.Errorf(\"healthz server failed: %v\", err)"},
			{"kube-proxy v1.21+ (structured; logger.Error(err, ...) with contextual logging later, same text)",
				`E0301 07:31:22.061234    3120 server.go:598] "Healthz server failed" err="listen tcp 0.0.0.0:10256: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted."`,
				"kubernetes cmd/kube-proxy/app/server.go klog.ErrorS(err, \"Healthz server failed\")"},
		},
	}
	maps.Copy(out, nodeWordings())
	return out
}
