// Package collectors is the ground floor: everything that gathers evidence. The evidence
// contract itself (names, keys, decoding) is collectors/evidence; the names below are
// that package's, kept here so callers that spell collectors.NodeHost keep compiling.
package collectors

import "github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"

// Cluster evidence paths (evidence.Path*).
const (
	ClusterNodes      = evidence.PathNodes
	ClusterServices   = evidence.PathServices
	ClusterPods       = evidence.PathPods
	ClusterEvents     = evidence.PathEvents
	ClusterDaemonSets = evidence.PathDaemonSets
	ClusterConfig     = evidence.PathClusterConfig
)

// Node evidence file names (evidence.File*).
const (
	NodeHost          = evidence.FileHost
	NodeServices      = evidence.FileServices
	NodeProcesses     = evidence.FileProcesses
	NodeHNSNetworks   = evidence.FileHNSNetworks
	NodeRoutes        = evidence.FileRoutes
	NodeIPAddresses   = evidence.FileIPAddresses
	NodeImages        = evidence.FileImages
	NodeCNIConfig     = evidence.FileCNIConfig
	NodeContainerdCfg = evidence.FileContainerdConfig
	NodeKubeletConfig = evidence.FileKubeletConfig
	NodeKubeProxyLog  = evidence.FileKubeProxyLog
	NodeKubeletLog    = evidence.FileKubeletLog
	NodeContainers    = evidence.FileContainers

	NodeLogKubelet   = evidence.FileLogKubelet
	NodeLogKubeProxy = evidence.FileLogKubeProxy
	NodeLogRuntime   = evidence.FileLogRuntime
	NodeLogFlanneld  = evidence.FileLogFlanneld
	NodeLogStartup   = evidence.FileLogStartup
	NodeEventsSCM    = evidence.FileEventsSCM
	NodeEventsHNS    = evidence.FileEventsHNS
	NodeHNSEndpoints = evidence.FileHNSEndpoints
	NodeHNSPolicies  = evidence.FileHNSPolicies
	NodeDisk         = evidence.FileDisk
)

// SnapshotNodeFiles are the node files a snapshot adds to the probes' own.
func SnapshotNodeFiles() []string { return evidence.SnapshotNodeFiles() }

// Bundle files outside the evidence tree.
const (
	BundleManifest = "manifest.json" // format version, tool version, time, per-node transport, per-item status/size/sha256/error, redactions
	BundleFindings = "findings.json" // the report's JSON
	BundleReport   = "report.md"     // the Markdown report
	BundleAudit    = "audit.jsonl"   // fix attempts, one JSON object a line
)

// ErrSuffix and SweepErr: see the evidence package.
const (
	ErrSuffix = evidence.ErrSuffix
	SweepErr  = evidence.SweepErr
)

// Evidence, Memo and MissingError are the evidence package's.
type (
	Evidence     = evidence.Evidence
	Memo         = evidence.Memo
	MissingError = evidence.MissingError
)

// NewMemo makes an empty memo.
func NewMemo() *Memo { return evidence.NewMemo() }

// NodeFile is the path of a node's evidence file.
func NodeFile(node, name string) string { return evidence.NodeFile(node, name) }

// IsNodeFile reports whether a probe's Needs entry names a node file (not a cluster path).
func IsNodeFile(name string) bool { return evidence.IsNodeFile(name) }
