package probes

// nodeWordings are the wordings of imageSignatures and nodeSignatures, as the runtime's
// log (logrus: msg and error quoted, inner quotes escaped), the kubelet's klog and the
// kubelet's events print them.
func nodeWordings() map[string][]wording {
	npd := "node-problem-detector config/windows-containerd-monitor-filelog.json"
	return map[string][]wording{
		"image-layer-diff-id": {
			{"containerd 1.6+ CRI plugin log (logrus)",
				`time="2024-05-20T14:10:02.118203400Z" level=error msg="CreateContainer within sandbox \"3f1c\" for &ContainerMetadata{Name:web,Attempt:0,} failed" error="failed to create containerd container: error unpacking image: wrong diff id calculated on extraction \"sha256:2011c3a5\""`,
				npd + " ContainerCreationFailed; containerd pkg/cri container_create.go and opts/container.go WithNewSnapshot"},
			{"the kubelet's Failed event",
				`Failed: Error: failed to create containerd container: error unpacking image: wrong diff id calculated on extraction "sha256:2011c3a5"`,
				"kubernetes pkg/kubelet/kuberuntime kuberuntime_container.go: event Failed \"Error: %v\" of the CreateContainer error"},
		},
		"image-layer-diff-id-pull": {
			{"the kubelet's Failed event for a pull (containerd 1.6+)",
				`Failed: Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2022": rpc error: code = Unknown desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2022": wrong diff id calculated on extraction "sha256:2011c3a5"`,
				"kubernetes pkg/kubelet/images image_manager.go event Failed \"Failed to pull image %q: %v\"; containerd pkg/cri image_pull.go"},
		},
		"image-layer-bad-tar": {
			{"containerd 1.6+ CRI plugin log (logrus)",
				`time="2024-05-20T14:10:02.118203400Z" level=error msg="PullImage \"mcr.microsoft.com/windows/servercore:ltsc2022\" failed" error="failed to pull and unpack image \"mcr.microsoft.com/windows/servercore:ltsc2022\": failed to extract layer sha256:8a1c07e4: archive/tar: invalid tar header"`,
				npd + " CorruptContainerImageLayer; containerd pkg/cri image_pull.go (logs \"PullImage %q failed\")"},
			{"the kubelet's Failed event",
				`Failed: Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2022": rpc error: code = Unknown desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2022": failed to extract layer sha256:8a1c07e4: archive/tar: invalid tar header: unknown`,
				"kubernetes pkg/kubelet/images image_manager.go event Failed \"Failed to pull image %q: %v\""},
		},
		"hcs-empty-layerchain": {
			{"kubelet <= v1.23 with Docker (klog, the error as printed)",
				`E0520 17:01:22.414911    2904 remote_runtime.go:200] CreateContainer in sandbox "3f1c" from runtime service failed: rpc error: code = Unknown desc = failed to create a sandbox for pod "web-1": Error response from daemon: Failed to unmarshall layerchain json - invalid character '\x00' looking for beginning of value`,
				"kubernetes/kubernetes#78139 (Windows 1809, Docker); moby daemon/graphdriver/windows getLayerChain"},
			{"the runtime's own log (logrus doubles the backslash inside msg)",
				`time="2021-06-22T06:36:19.000000000Z" level=error msg="Handler for POST /v1.40/containers/create returned error: Failed to unmarshall layerchain json - invalid character '\\x00' looking for beginning of value"`,
				npd + " HCSEmptyLayerchain (which watches the containerd log for it); microsoft/service-fabric#1146 quotes the same '\\\\x00'"},
		},
		"resolv-conf-missing": {
			{"kubelet <= v1.26 (the FailedCreatePodSandBox event)",
				`FailedCreatePodSandBox: Failed to create pod sandbox: open /etc/resolv.conf: The system cannot find the file specified.`,
				"kubernetes pkg/kubelet/kuberuntime kuberuntime_manager.go event \"Failed to create pod sandbox: %v\"; network/dns dns.go os.Open; kubernetes-sigs/sig-windows-tools PR #1 review"},
			{"kubelet v1.21-v1.26 (structured)",
				`E0308 10:14:40.118203    2904 kuberuntime_sandbox.go:41] "Failed to generate sandbox config for pod" err="open /etc/resolv.conf: The system cannot find the file specified." pod="default/web-1"`,
				"kubernetes pkg/kubelet/kuberuntime kuberuntime_sandbox.go klog.ErrorS(err, \"Failed to generate sandbox config for pod\", ...)"},
			{"kubelet <= v1.26, the node event of the periodic check",
				`CheckLimitsForResolvConf: open c:\etc\resolv.conf: The system cannot find the path specified.`,
				"kubernetes pkg/kubelet/network/dns dns.go CheckLimitsForResolvConf records err.Error() on the node"},
			{"kubelet v1.27+ (dns_windows.go)",
				`E0308 10:14:40.118203    2904 kuberuntime_sandbox.go:45] "Failed to generate sandbox config for pod" err="Unexpected resolver config value: \"/etc/resolv.conf\". Expected \"\", \"Host\", or a path to an existing resolv.conf file." pod="default/web-1"`,
				"kubernetes pkg/kubelet/network/dns/dns_windows.go getHostDNSConfig (kubernetes/kubernetes#116800)"},
		},
		"wincat-missing": {
			{"the Kubernetes Windows troubleshooting page's wording",
				`error: unable to do port forwarding: wincat not found`,
				"kubernetes/website content/en/docs/setup/production-environment/windows (troubleshooting: kubectl port-forward fails)"},
			{"kubelet with dockershim (in-process streaming, klog)",
				`E1004 08:41:56.115337    3500 httpstream.go:251] error forwarding port 80 to pod c70dca3ca3eb916bb135837bb27c6137627182cb5d417dbf81bba4f6807fa0e5, uid : Error executing in Docker Container: 126: `,
				"aws/containers-roadmap#1104 (EKS 1.17, the kubelet's EKS event log), rancher/rancher#32577"},
			{"Docker's exec of wincat.exe",
				`exec's CreateProcess() failed [module=libcontainerd namespace=moby container=c70dca3c error=container c70dca3c encountered an error during CreateProcess: failure in a Windows system call: The system cannot find the file specified. (0x2) extra info: {"CommandLine":"wincat.exe 127.0.0.1 80","User":"ContainerUser"}]`,
				"aws/containers-roadmap#1104 (Windows Logs / Application, docker)"},
			{"containerd 1.6+ CRI streaming (the exec error's text shaped after hcsshim's CreateProcess error)",
				`time="2024-05-20T14:10:02.118203400Z" level=error msg="error forwarding port 80 to pod 3f1c, uid : failed to execute port forward in sandbox: : failed to start exec \"e5b1\": hcs::System::CreateProcess 3f1c: The system cannot find the file specified.: unknown"`,
				"containerd pkg/cri sandbox_portforward_windows.go \"failed to execute port forward in sandbox: %s: %w\""},
		},
		"mgmt-adapter-missing": {
			{"the SDN scripts (start.ps1 / start-kubelet.ps1 output, PowerShell error record)",
				`Failed to find a suitable network adapter, check your network settings.`,
				"microsoft/SDN Kubernetes/windows/helper.psm1 Get-MgmtSubnet throw"},
		},
	}
}
