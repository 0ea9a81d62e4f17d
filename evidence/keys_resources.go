package evidence

import (
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Node evidence of the runtime and resources: containerd's CNI folders, interface MTUs,
// kube-proxy's health port, and TCP ports and memory. Evidence collected before this
// version lacks them and the probes reading them skip.
const (
	FileCNIDirs         = "cni-dirs.json"
	FileNetInterfaces   = "net-interfaces.json"
	FileKubeProxyHealth = "kube-proxy-healthz.json"
	FileResources       = "resources.json"
)

// resourceKeys are this file's keys, in table order (appended to nodeKeys).
func resourceKeys() []Ref {
	return []Ref{CNIDirs, NetInterfaces, KubeProxyHealth, Resources}
}

// CNIDirs is nodes/<node>/cni-dirs.json.
var CNIDirs Key[decode.CNIDirs] = NodeKey(FileCNIDirs, decode.DecodeCNIDirs, Meta{
	Command: "`conf_dir` and `bin_dir` (or the first of `bin_dirs`) from `$env:ProgramFiles\\containerd\\config.toml`, else containerd's Windows defaults `C:\\Program Files\\containerd\\cni\\conf` and `...\\cni\\bin`; on Docker nodes (no config.toml, a `docker` service) the kubelet's `--cni-conf-dir`/`--cni-bin-dir` (first of the list) from its Win32_Process command line, else its defaults `C:\\etc\\cni\\net.d`/`C:\\opt\\cni\\bin`, with `ConfDirFrom='kubelet-flag'|'kubelet-default'` and `NetworkPlugin` (its `--network-plugin`), with the names of the files in each: `[pscustomobject]@{ConfDir=...; ConfDirFrom='config.toml'|'default'; ConfFiles=@((Get-ChildItem $conf -File).Name); BinDir=...; BinDirFrom=...; BinFiles=@((Get-ChildItem $bin -File -Filter *.exe).Name)} | ConvertTo-Json`",
	Format:  "one object; `ConfFiles`/`BinFiles` lists of names (a single name as a string is read too). Docker nodes add `NetworkPlugin`; nodes with neither containerd's config.toml nor a Docker kubelet have the `.err`",
})

// NetInterfaces is nodes/<node>/net-interfaces.json.
var NetInterfaces Key[decode.NetInterfaces] = NodeKey(FileNetInterfaces, decode.DecodeNetInterfaces, Meta{
	Command: "`[pscustomobject]@{IPInterfaces=@(Get-NetIPInterface -AddressFamily IPv4 -IncludeAllCompartments | Select InterfaceAlias, ifIndex, NlMtu, CompartmentId, ConnectionState); Adapters=@(Get-NetAdapter | Select Name, InterfaceDescription, ifIndex, MtuSize, Virtual, Status)} | ConvertTo-Json -Depth 3` (enums as their names)",
	Format:  "one object: `IPInterfaces[]` (`NlMtu` in bytes, the loopback's 4294967295; `CompartmentId` 1 for the host, others are containers'), `Adapters[]` (`MtuSize`, `Virtual`, `Status`)",
})

// KubeProxyHealth is nodes/<node>/kube-proxy-healthz.json.
var KubeProxyHealth Key[decode.KubeProxyHealth] = NodeKey(FileKubeProxyHealth, decode.DecodeKubeProxyHealth, Meta{
	Command: "`Invoke-WebRequest -UseBasicParsing -TimeoutSec 3 http://<healthz-bind-address>/healthz` (the address from kube-proxy's `--healthz-bind-address`, its `--config` file's `healthzBindAddress`, else 0.0.0.0:10256; 0.0.0.0 asked as 127.0.0.1), as `{BindAddress, From, Url, ProcessId, StatusCode, Content, Error}`",
	Format:  "one object; `StatusCode` 0 with `Error` when nothing answered. `.err` (\"kube-proxy is not running\") when there is no kube-proxy process",
})

// Resources is nodes/<node>/resources.json.
var Resources Key[decode.Resources] = NodeKey(FileResources, decode.DecodeResources, Meta{
	Command: "`Get-NetTCPSetting` (DynamicPortRangeStartPort, DynamicPortRangeNumberOfPorts; `netsh int ipv4 show dynamicport tcp` when absent), the ports of `netsh int ipv4 show excludedportrange protocol=tcp` inside it, `Get-NetTCPConnection` counted in that range and grouped by OwningProcess (the top 5 with their names), `Win32_OperatingSystem` TotalVisibleMemorySize/FreePhysicalMemory, `Win32_PerfFormattedData_PerfOS_Memory` CommittedBytes/CommitLimit, `crictl imagefsinfo -o json` usedBytes (containerd)",
	Format:  "one object: `DynamicPortStart`, `DynamicPortCount`, `ExcludedPorts`, `TCPConnections`, `DynamicPortsInUse`, `TopOwners[]` (`ProcessId`, `Name`, `Count`), `TotalMemoryKB`, `FreeMemoryKB`, `CommittedBytes`, `CommitLimit`, `ImageFSUsedBytes` (0 without containerd)",
})

// PathEndpointSlices is where the Services' EndpointSlices are stored. Evidence collected
// before this version lacks it (and a user without the RBAC to list them has its .err);
// SVC-LB-POLICY then falls back to the pods it has.
const PathEndpointSlices = "cluster/endpointslices.json"

// EndpointSlices is cluster/endpointslices.json: the live backends kube-proxy balances over.
var EndpointSlices Key[[]discoveryv1.EndpointSlice] = ClusterKey(PathEndpointSlices, decode.EndpointSlices, Meta{
	Command: "`kubectl get endpointslices -A -o json`",
	Format:  "List of discovery.k8s.io/v1 EndpointSlice (`metadata.labels[\"kubernetes.io/service-name\"]`, `endpoints[].addresses`, `endpoints[].conditions.ready`)",
})
