package evidence

import (
	"slices"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// nodeKeys are the node keys the probes may read, in table order. A new node evidence
// file is a key value here (built once), one entry in this list, and its snippet of the same name.
func nodeKeys() []Ref {
	base := []Ref{Host, WindowsServices, Processes, HNSNetworks, Routes, IPAddresses, Images, Containers,
		CNIConfig, ContainerdConfig, KubeletConfig, KubeProxyLog, KubeletLog,
		HNSEndpoints, HNSPolicies, Disk, EventsSCM, EventsHNS}
	return slices.Concat(base, resourceKeys(), firewallKeys(), proxyKeys(), flannelKeys(), hnsHealthKeys(), defenderKeys(), kubeletCertKeys())
}

// Node evidence the live sweep collects since the HNS, resource and event probes read
// it. Older snapshots carried it for people to read; evidence collected
// before this version lacks it outside snapshots, and the probes skip then.
const (
	FileHNSEndpoints = "hns-endpoints.json"
	FileHNSPolicies  = "hns-policylists.json"
	FileDisk         = "disk.json"
	FileEventsSCM    = "winevent-scm.json"
	FileEventsHNS    = "winevent-hns.json"
)

// Host is nodes/<node>/host.json.
var Host Key[decode.Host] = NodeKey(FileHost, decode.DecodeHost, Meta{
	Command: "`[pscustomobject]@{ComputerName=$env:COMPUTERNAME; DnsHostName=[Net.Dns]::GetHostName(); Domain=$cs.Domain; PartOfDomain=$cs.PartOfDomain; ProductName=$cv.ProductName; CurrentBuild=$cv.CurrentBuild; UBR=$cv.UBR; BuildLabEx=$cv.BuildLabEx; LastBootUpTime=$os.LastBootUpTime.ToUniversalTime().ToString('o'); CollectedAt=(Get-Date).ToUniversalTime().ToString('o')} | ConvertTo-Json` with `$cv = Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'`, `$cs = Get-CimInstance Win32_ComputerSystem`, `$os = Get-CimInstance Win32_OperatingSystem`",
	Format:  "one object. `CurrentBuild` as a string or a number; `LastBootUpTime` and `CollectedAt` ISO 8601 or `/Date(ms)/`; `CollectedAt` may be missing (evidence collected before it was added)",
})

// WindowsServices is nodes/<node>/services.json.
var WindowsServices Key[[]decode.Service] = NodeKey(FileServices, decode.DecodeServices, Meta{
	Command: "`Get-CimInstance Win32_Service | ? Name -in 'kubelet','kube-proxy','kubeproxy','containerd','docker','flanneld','hns','RemoteAccess'`, each as `{Name, State, StartMode, PathName, ProcessId, AppParameters, AppEnvironmentExtra}` (the last two from `HKLM:\\SYSTEM\\CurrentControlSet\\Services\\<name>\\Parameters`, set by nssm) `| ConvertTo-Json -Depth 3`",
	Format:  "list. `State`/`StartMode` (`Running`, `Auto`) or, from a pasted `Get-Service | ConvertTo-Json`, `Status`/`StartType` as numbers",
})

// Processes is nodes/<node>/processes.json.
var Processes Key[[]decode.Process] = NodeKey(FileProcesses, decode.DecodeProcesses, Meta{
	Command: "`Get-CimInstance Win32_Process | ? Name -in 'kubelet.exe','kube-proxy.exe','flanneld.exe','containerd.exe','dockerd.exe' | Select Name, ProcessId, CommandLine | ConvertTo-Json -Depth 3`",
	Format:  "list. `CommandLine` is read the way `CommandLineToArgvW` splits it",
})

// HNSNetworks is nodes/<node>/hns-networks.json.
var HNSNetworks Key[[]decode.HNSNetwork] = NodeKey(FileHNSNetworks, decode.DecodeHNSNetworks, Meta{
	Command: "`Get-HnsNetwork | ConvertTo-Json -Depth 8` (imports `C:\\k\\hns.v2.psm1` or `C:\\k\\hns.psm1` when the cmdlet is missing)",
	Format:  "list of HNS v1 networks: `Name`, `Type` (any case), `Subnets[].AddressPrefix` (also as the `@{AddressPrefix=…}` string that `-Depth 2` leaves)",
})

// Routes is nodes/<node>/routes.json.
var Routes Key[[]decode.Route] = NodeKey(FileRoutes, decode.DecodeRoutes, Meta{
	Command: "`Get-NetRoute -AddressFamily IPv4 | Select DestinationPrefix, NextHop, InterfaceAlias, ifIndex, RouteMetric, @{n='Protocol';e={\"$($_.Protocol)\"}} | ConvertTo-Json -Depth 3`",
	Format:  "list. `Protocol` (`Local`, `NetMgmt`, `Bgp`, or its MIB number, 14 for BGP) may be missing (evidence collected before it was added)",
})

// IPAddresses is nodes/<node>/ip-addresses.json.
var IPAddresses Key[[]decode.IPAddress] = NodeKey(FileIPAddresses, decode.DecodeIPAddresses, Meta{
	Command: "`Get-NetIPAddress -AddressFamily IPv4 | Select IPAddress, PrefixLength, InterfaceAlias, ifIndex | ConvertTo-Json -Depth 3`",
	Format:  "list",
})

// Images is nodes/<node>/images.json.
var Images Key[[]decode.Image] = NodeKey(FileImages, decode.DecodeImages, Meta{
	Command: "Docker: `docker image inspect (docker images -q --no-trunc)`. containerd: `crictl inspecti -o json (crictl images -q)`",
	Format:  "docker: one JSON array (`Id`, `RepoTags`, `Os`, `OsVersion`). crictl: one document per image (`status.repoTags`, `info.imageSpec[\"os.version\"]`); `crictl images -o json` is read too, but has no OS version",
})

// Containers is nodes/<node>/containers.json.
var Containers Key[[]decode.Container] = NodeKey(FileContainers, decode.DecodeContainers, Meta{
	Command: "Docker: `docker ps -a --no-trunc --format '{{json .}}'`. containerd: `crictl pods -o json` (the snippet throws `neither docker nor crictl is on the PATH` otherwise)",
	Format:  "docker: JSON lines (`ID`, `Names` as `k8s_<container>_<pod>_<namespace>_<pod uid>_<attempt>`, `State`, `Status`). crictl: `{\"items\": [...]}` (`id`, `metadata.name/namespace/uid`, `state`). Empty output when there are no containers",
})

// CNIConfig is nodes/<node>/cni-config.json.
// Raw: Get-Content -Raw keeps the file's line ends; PowerShell-written configs are
// CRLF, Calico's install-cni (Go) writes LF.
var CNIConfig Key[decode.CNIConfig] = NodeKey(FileCNIConfig, decode.DecodeCNIConfig, Meta{Raw: true,
	Command: "`Get-Content -Raw` of the first `*.conf`/`*.conflist`/`*.json` in `C:\\k\\cni\\config`, `C:\\etc\\cni\\net.d`, `C:\\ProgramData\\containerd\\cni\\conf`",
	Format:  "the file as on disk: a CNI config or conflist with `name` (win-bridge, win-overlay, flannel, wincni, sdnbridge, sdnoverlay)",
})

// ContainerdConfig is nodes/<node>/containerd-config.toml.
var ContainerdConfig Key[decode.ContainerdConfig] = NodeKey(FileContainerdConfig, decode.DecodeContainerdConfig, Meta{Raw: true,
	Command: "`Get-Content -Raw \"$env:ProgramFiles\\containerd\\config.toml\"`",
	Format:  "TOML. `sandbox_image` (config v2) or `pinned_images.sandbox` (v3). Docker nodes have the `.err` instead",
})

// KubeletConfig is nodes/<node>/kubelet-config.json.
var KubeletConfig Key[decode.KubeletConfig] = NodeKey(FileKubeletConfig, decode.DecodeKubeletConfig, Meta{Raw: true,
	Command: "`Get-Content -Raw` of the first of `C:\\var\\lib\\kubelet\\config.yaml`, `C:\\k\\kubelet-config.yaml`, `C:\\etc\\kubernetes\\kubelet-config.yaml`",
	Format:  "a KubeletConfiguration in YAML or JSON. SDN-script nodes have none (`.err`)",
})

// KubeProxyLog is nodes/<node>/kube-proxy.log.
var KubeProxyLog Key[[]byte] = NodeKey(FileKubeProxyLog, decode.Text, Meta{
	Command: "`Get-Content -Tail 200` of the newest `C:\\k\\kube-proxy*.log`, `C:\\var\\log\\kube-proxy\\*.log`, `C:\\etc\\kubernetes\\logs\\kube-proxy*.log`",
	Format:  "text (klog)",
})

// KubeletLog is nodes/<node>/kubelet.log.
var KubeletLog Key[[]byte] = NodeKey(FileKubeletLog, decode.Text, Meta{
	Command: "the same for `kubelet`",
	Format:  "text (klog)",
})

// HNSEndpoints is nodes/<node>/hns-endpoints.json.
var HNSEndpoints Key[[]decode.HNSEndpoint] = NodeKey(FileHNSEndpoints, decode.DecodeHNSEndpoints, Meta{
	Command: "`ConvertTo-Json -InputObject @(Get-HnsEndpoint) -Depth 8` (imports `C:\\k\\hns.v2.psm1` or `C:\\k\\hns.psm1` when the cmdlet is missing)",
	Format:  "list of HNS v1 endpoints: `ID`, `Name`, `IPAddress`, `IsRemoteEndpoint`, `State`, `RemoveProcessingStartTime`, `VirtualNetworkName`",
})

// HNSPolicies is nodes/<node>/hns-policylists.json.
var HNSPolicies Key[[]decode.HNSPolicyList] = NodeKey(FileHNSPolicies, decode.DecodeHNSPolicyLists, Meta{
	Command: "`ConvertTo-Json -InputObject @(Get-HnsPolicyList) -Depth 8`",
	Format:  "list of policy lists: `ID`, `Policies[]` (`Type` ELB, `VIPs`, `Protocol` 6/17, `InternalPort`, `ExternalPort`, `SourceVIP`), `References` (`/endpoints/<id>`)",
})

// Disk is nodes/<node>/disk.json.
var Disk Key[[]decode.Disk] = NodeKey(FileDisk, decode.DecodeDisks, Meta{
	Command: "`Get-CimInstance Win32_LogicalDisk -Filter \"DeviceID='C:'\"` as `{DeviceID, FreeSpace, Size}`",
	Format:  "one object (or a list of them), sizes in bytes",
})

// EventsSCM is nodes/<node>/winevent-scm.json. The live sweep takes the last 24 hours
// (the snippet's default, at most 2000 events) under its per-snippet time limit; a
// snapshot passes --since.
var EventsSCM Key[[]decode.WinEvent] = NodeKey(FileEventsSCM, decode.DecodeWinEvents, Meta{Params: []string{ParamSince},
	Command: "`Get-WinEvent` of the System log, provider Service Control Manager, since Since (default: 24 hours)",
	Format:  "list of `{TimeCreated, Id, Level, LevelDisplayName, ProviderName, Message}`; `[]` when there are none",
})

// EventsHNS is nodes/<node>/winevent-hns.json.
var EventsHNS Key[[]decode.WinEvent] = NodeKey(FileEventsHNS, decode.DecodeWinEvents, Meta{Params: []string{ParamSince},
	Command: "`Get-WinEvent` of the Host-Network-Service and Hyper-V-Compute Admin and Operational logs, since Since (default: 24 hours)",
	Format:  "list of `{TimeCreated, Id, Level, LevelDisplayName, LogName, ProviderName, Message}`; `[]` when there are none",
})
