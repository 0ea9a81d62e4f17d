package decode

import (
	"bytes"
	"encoding/json"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// List is a JSON array of T, or one T alone: PS 5.1 unwraps a one-item list that
// reaches ConvertTo-Json without @(), and a hand-pasted file may have either.
type List[T any] []T

func (l *List[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*l = nil
		return nil
	case len(b) > 0 && b[0] == '{':
		var one T
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*l = List[T]{one}
		return nil
	}
	var many []T
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// CNIDirs is cni-dirs.json: where the runtime looks for CNI configs and plugin binaries,
// where each folder came from, and the file names in them. On containerd nodes the
// folders come from config.toml ("config.toml") or containerd's Windows defaults
// %ProgramFiles%\containerd\cni\conf and \bin ("default"); BinDir is the first of
// containerd 2.1's bin_dirs. On Docker nodes (dockershim) they are the kubelet's
// --cni-conf-dir/--cni-bin-dir ("kubelet-flag") or its defaults C:\etc\cni\net.d and
// C:\opt\cni\bin ("kubelet-default"), BinDir the first of the comma-separated list, and
// NetworkPlugin is the kubelet's --network-plugin ("" when unset: no CNI). Evidence from
// before Docker nodes were listed has neither kubelet source nor NetworkPlugin.
type CNIDirs struct {
	ConfDir       Str
	ConfDirFrom   Str
	ConfFiles     Strings
	BinDir        Str
	BinDirFrom    Str
	BinFiles      Strings
	NetworkPlugin *Str `json:",omitempty"`
}

// FromKubelet says whether the folders are the kubelet's (a Docker node), not containerd's.
func (d CNIDirs) FromKubelet() bool { return strings.HasPrefix(string(d.ConfDirFrom), "kubelet") }

// UsesCNI is false on a Docker node whose kubelet runs without --network-plugin=cni: the
// kubelet then attaches pods to Docker's own network and reads no CNI folder.
func (d CNIDirs) UsesCNI() bool {
	return !d.FromKubelet() || d.NetworkPlugin == nil || strings.EqualFold(string(*d.NetworkPlugin), "cni")
}

// DecodeCNIDirs reads cni-dirs.json (one object).
func DecodeCNIDirs(file string, b []byte) (CNIDirs, error) {
	d, err := Object[CNIDirs](file, b)
	if err != nil {
		return d, err
	}
	if d.ConfDir == "" || d.BinDir == "" {
		return d, fail(file, nil, "cni-dirs.json needs ConfDir and BinDir")
	}
	return d, nil
}

// HasBinary says whether the bin folder holds the plugin type's executable: libcni runs
// "<type>.exe" on Windows (containernetworking/cni pkg/invoke: FindInPath adds the
// executable extensions). Names compare case-insensitively, as NTFS does.
func (d CNIDirs) HasBinary(typ string) bool {
	want := strings.ToLower(typ)
	for _, f := range d.BinFiles {
		f = strings.ToLower(f)
		if f == want+".exe" || f == want {
			return true
		}
	}
	return false
}

// CNIConfigFiles are the conf folder's files libcni loads (.conf, .conflist, .json; go-cni
// ConfFiles with those extensions), in name order as the snippet sorts them.
func (d CNIDirs) CNIConfigFiles() []string {
	var out []string
	for _, f := range d.ConfFiles {
		l := strings.ToLower(f)
		if strings.HasSuffix(l, ".conf") || strings.HasSuffix(l, ".conflist") || strings.HasSuffix(l, ".json") {
			out = append(out, f)
		}
	}
	return out
}

// NetInterfaces is net-interfaces.json: every IPv4 interface, the containers'
// compartments included, and every network adapter with its link MTU.
type NetInterfaces struct {
	IPInterfaces List[NetInterface]
	Adapters     List[NetAdapter]
}

// NetInterface is one IPv4 interface (`Get-NetIPInterface -AddressFamily IPv4
// -IncludeAllCompartments`): NlMtu is the IP-layer MTU in bytes (MSFT_NetIPInterface.NlMtu,
// shown as "NlMtu(Bytes)"); CompartmentId 1 is the host's, others are containers'
// network compartments.
type NetInterface struct {
	InterfaceAlias  Str
	IfIndex         Int `json:"ifIndex"`
	NlMtu           Int
	CompartmentId   Int
	ConnectionState Str // "Connected"/"Disconnected", or the enum's number (1 connected)
}

// NetAdapter is one adapter (`Get-NetAdapter`): MtuSize is MSFT_NetAdapter's link MTU;
// Virtual is false for the physical NIC that carries the VXLAN packets (bound to the
// Hyper-V switch, it has no IP interface of its own).
type NetAdapter struct {
	Name                 Str
	InterfaceDescription Str
	IfIndex              Int `json:"ifIndex"`
	MtuSize              Int
	Virtual              Str // "True"/"False" or a JSON boolean
	Status               Str
}

// DecodeNetInterfaces reads net-interfaces.json (one object).
func DecodeNetInterfaces(file string, b []byte) (NetInterfaces, error) {
	n, err := Object[NetInterfaces](file, b)
	if err != nil {
		return n, err
	}
	if len(n.IPInterfaces) == 0 && len(n.Adapters) == 0 {
		return n, fail(file, nil, "net-interfaces.json has neither IPInterfaces nor Adapters")
	}
	return n, nil
}

// Physical says whether the adapter is a physical one that is up.
func (a NetAdapter) Physical() bool {
	return strings.EqualFold(string(a.Virtual), "false") && (a.Status == "" || strings.EqualFold(string(a.Status), "up"))
}

// Connected says whether the interface is up; an absent state counts as up (a pasted
// table may lack the column).
func (n NetInterface) Connected() bool {
	s := strings.ToLower(string(n.ConnectionState))
	return s == "" || s == "connected" || s == "1"
}

// KubeProxyHealth is kube-proxy-healthz.json: what kube-proxy's healthz server answered
// (StatusCode 0 and Error when nothing did), where it was asked, and where the address
// came from ("--healthz-bind-address", "config", or "default" 0.0.0.0:10256).
type KubeProxyHealth struct {
	BindAddress Str
	From        Str
	URL         Str `json:"Url"`
	ProcessId   Int
	StatusCode  Int
	Content     Str
	Error       Str
}

// DecodeKubeProxyHealth reads kube-proxy-healthz.json (one object).
func DecodeKubeProxyHealth(file string, b []byte) (KubeProxyHealth, error) {
	h, err := Object[KubeProxyHealth](file, b)
	if err != nil {
		return h, err
	}
	if h.URL == "" {
		return h, fail(file, nil, "kube-proxy-healthz.json has no Url")
	}
	return h, nil
}

// Resources is resources.json: the TCP dynamic port range and the ports bound in it
// (counts only, the largest owners first), and memory and commit. Memory sizes are as
// Win32_OperatingSystem gives them (KB); commit as Win32_PerfFormattedData_PerfOS_Memory
// does (bytes).
type Resources struct {
	DynamicPortStart  Int
	DynamicPortCount  Int
	ExcludedPorts     Int // reserved inside the dynamic range (HNS's 64-port blocks among them)
	TCPConnections    Int
	DynamicPortsInUse Int
	TopOwners         List[PortOwner]
	TotalMemoryKB     Int
	FreeMemoryKB      Int
	CommittedBytes    Int
	CommitLimit       Int
	// ImageFSUsedBytes is `crictl imagefsinfo`'s usedBytes (images and snapshots); 0 on
	// Docker nodes or when crictl did not answer.
	ImageFSUsedBytes Int
}

// PortOwner is a process and how many TCP connections in the dynamic range it holds.
type PortOwner struct {
	ProcessId Int
	Name      Str
	Count     Int
}

// DecodeResources reads resources.json (one object).
func DecodeResources(file string, b []byte) (Resources, error) {
	r, err := Object[Resources](file, b)
	if err != nil {
		return r, err
	}
	if r.DynamicPortCount < 0 || r.DynamicPortsInUse < 0 || r.CommittedBytes < 0 || r.CommitLimit < 0 {
		return r, fail(file, nil, "resources.json has a negative count")
	}
	return r, nil
}

// EndpointSlices reads cluster/endpointslices.json (`kubectl get endpointslices -A -o json`).
func EndpointSlices(file string, b []byte) ([]discoveryv1.EndpointSlice, error) {
	return kubeList[discoveryv1.EndpointSlice](file, b, "EndpointSlice")
}

// ServiceEndpoints are the addresses of one Service's endpoints in its EndpointSlices
// (label kubernetes.io/service-name), split into ready and not. A nil Ready condition
// counts as ready, as the discovery.k8s.io/v1 API defines it ("should be interpreted as
// true"), and a terminating endpoint is not ready.
type ServiceEndpoints struct {
	Ready, NotReady []string
	Slices          int // how many slices the Service has
}

// EndpointsOf collects the Service's endpoint addresses from the slices.
func EndpointsOf(slices []discoveryv1.EndpointSlice, namespace, name string) ServiceEndpoints {
	var out ServiceEndpoints
	for _, s := range slices {
		if s.Namespace != namespace || s.Labels[discoveryv1.LabelServiceName] != name {
			continue
		}
		out.Slices++
		for _, e := range s.Endpoints {
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			if e.Conditions.Terminating != nil && *e.Conditions.Terminating {
				ready = false
			}
			for _, a := range e.Addresses {
				if ready {
					out.Ready = append(out.Ready, a)
				} else {
					out.NotReady = append(out.NotReady, a)
				}
			}
		}
	}
	return out
}
