package evidence

import (
	"slices"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// Node evidence only a snapshot collects: logs and detail for a support case.
const (
	FileLogKubelet   = "log-kubelet.log"
	FileLogKubeProxy = "log-kube-proxy.log"
	FileLogRuntime   = "log-runtime.log"
	FileLogFlanneld  = "log-flanneld.log"
	FileLogStartup   = "log-startup.log"
)

// Sweep parameters a snippet may declare. The log snippets cap what they return and
// the event snippets start at a time; both are set per snapshot (--max-log, --since).
const (
	ParamMaxBytes = "MaxBytes" // tail cap in bytes
	ParamSince    = "Since"    // RFC 3339
)

// logKey is a log tail a snapshot collects, whole lines, at most MaxBytes.
func logKey(name, paths string) Key[[]byte] {
	return NodeKey(name, decode.Text, Meta{SnapshotOnly: true, Params: []string{ParamMaxBytes, ParamSince},
		Command: "the newest log of " + paths + ", its last MaxBytes bytes", Format: "text"})
}

// LogKubelet and the keys after it are what only a snapshot collects.
var LogKubelet Key[[]byte] = logKey(FileLogKubelet, "`C:\\k\\kubelet*.log`, `C:\\var\\log\\kubelet\\*.log`, `C:\\etc\\kubernetes\\logs\\kubelet*.log`")
var LogKubeProxy Key[[]byte] = logKey(FileLogKubeProxy, "`C:\\k\\kube-proxy*.log`, `C:\\var\\log\\kube-proxy\\*.log`, `C:\\etc\\kubernetes\\logs\\kube-proxy*.log`")
var LogRuntime Key[[]byte] = logKey(FileLogRuntime, "containerd (`C:\\k\\containerd*.log`, `C:\\var\\log\\containerd\\*.log`) or the runtime's `panic.log`")
var LogFlanneld Key[[]byte] = logKey(FileLogFlanneld, "`C:\\k\\flanneld*.log`, `C:\\var\\log\\flanneld\\*.log`")
var LogStartup Key[[]byte] = logKey(FileLogStartup, "`C:\\var\\log\\startup.log` (Anthos), `C:\\AzureData\\CustomDataSetupScript.log` (AKS)")

// All is every key, in the order the contract table shows them: cluster, Windows node,
// Linux node, then what only a snapshot collects. Every list of evidence names derives from it.
func All() []Ref { return slices.Concat(clusterKeys(), nodeKeys(), linuxKeys(), snapshotKeys()) }

// snapshotKeys are the keys of this file, in table order.
func snapshotKeys() []Ref {
	return []Ref{LogKubelet, LogKubeProxy, LogRuntime, LogFlanneld, LogStartup}
}

// NodeKeys are the node keys; snapshot tells whether to list those only a snapshot
// collects (true) or those the probes may read (false).
func NodeKeys(snapshot bool) []Ref {
	var out []Ref
	for _, k := range All() {
		if m := k.Meta(); m.Scope == Node && m.SnapshotOnly == snapshot {
			out = append(out, k)
		}
	}
	return out
}

// Names lists the keys' names.
func Names(keys []Ref) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Meta().Name
	}
	return out
}

// SnapshotNodeFiles are the node files a snapshot adds to the probes' own.
func SnapshotNodeFiles() []string { return Names(NodeKeys(true)) }

// SweepParams gives each named snippet the values of the parameters its key declares
// (values by parameter name: MaxBytes, Since). Snippets that declare none get nothing.
func SweepParams(names []string, values map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, k := range All() {
		m := k.Meta()
		if m.Scope != Node || len(m.Params) == 0 || !slices.Contains(names, m.Name) {
			continue
		}
		p := map[string]any{}
		for _, name := range m.Params {
			if v, ok := values[name]; ok {
				p[name] = v
			}
		}
		if len(p) > 0 {
			out[m.Name] = p
		}
	}
	return out
}
