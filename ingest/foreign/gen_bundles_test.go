package foreign_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// files is a bundle's files by path inside it.
type files map[string][]byte

// hostName is the node's computer name (host.json), or its node name upper-cased.
func hostName(t testing.TB, tree fs.FS, node string) string {
	if b, ok := nodeFile(t, tree, node, evidence.FileHost); ok {
		var h struct{ ComputerName string }
		if json.Unmarshal(b, &h) == nil && h.ComputerName != "" {
			return h.ComputerName
		}
	}
	return strings.ToUpper(node)
}

// hostOS is the scenario's build and product name, as ver, systeminfo and
// [Environment]::OSVersion print them (Windows Server 2019 when host.json is absent).
func hostOS(t testing.TB, tree fs.FS, node string) (build, product string) {
	build, product = "17763", "Windows Server 2019 Datacenter"
	if b, ok := nodeFile(t, tree, node, evidence.FileHost); ok {
		var h struct{ CurrentBuild, ProductName string }
		if json.Unmarshal(b, &h) == nil && h.CurrentBuild != "" {
			build = h.CurrentBuild
			if h.ProductName != "" {
				product = h.ProductName
			}
		}
	}
	return build, product
}

// collectlogsFiles writes a node's evidence as collectlogs.ps1 does. layout "legacy" is
// the script before 2022-09 (hns.psm1: Get-HnsPolicyList into policy.txt); "2024" is
// microsoft/SDN since ea43876 run with -HnsSchemaVersion 1 (namespaces.txt,
// windowsServices.txt, hnsportpoolallocs.txt; v1 JSON).
func collectlogsFiles(t testing.TB, tree fs.FS, node, layout string) files {
	out := files{}
	host := hostName(t, tree, node)
	// The redirection creates the file even when the HNS cmdlets fail (their error goes
	// to the console).
	out["network.txt"], out["endpoint.txt"] = ps51(""), ps51("")
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSNetworks); ok {
		out["network.txt"] = ps51(jsonAfter(networkTable(items(t, "networks", b)), b))
		out["networkdetailed.txt"] = ps51(string(b))
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSEndpoints); ok {
		out["endpoint.txt"] = ps51(jsonAfter(selectTable(items(t, "endpoints", b), "IPAddress", "MacAddress", "IsRemoteEndpoint", "State"), b))
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSPolicies); ok {
		out["policy.txt"] = ps51(string(b))
	}
	var addrs []addr
	if b, ok := nodeFile(t, tree, node, evidence.FileIPAddresses); ok {
		addrs = addresses(t, b)
	}
	out["ip.txt"] = ps51(ipconfig(host, addrs) + netIPAddressList(addrs))
	if b, ok := nodeFile(t, tree, node, evidence.FileRoutes); ok {
		rs := routes(t, b)
		out["routes.txt"] = ps51(routePrint(rs, addrs) + netRouteTable(rs))
	}
	var svcs []service
	if b, ok := nodeFile(t, tree, node, evidence.FileServices); ok {
		svcs = services(t, b)
	}
	out["scqueryex.txt"] = ps51(scQueryex(svcs))
	build, _ := hostOS(t, tree, node)
	out["winver.txt"] = ps51("Microsoft Windows NT 10.0." + build + ".0\n\n\n")
	out["ports.txt"] = ps51("\nITEM LIST\n===========\n")
	out["firewall.txt"] = ps51("\nName                  : CoreNet-DHCP-In\n")
	out["winevt/System.evtx"] = []byte("ElfFile\x00")
	if layout == "2024" {
		out["namespaces.txt"] = ps51("\nID CompartmentId CompartmentGuid IsDefault EndpointID\n")
		out["hnsportpoolallocs.txt"] = ps51("")
		out["windowsServices.txt"] = ps51(getServiceTable(svcs))
	}
	return out
}

// aksFiles writes a node's evidence as collect-windows-logs.ps1 zips it: collectlogs'
// files (as AgentBaker ships it since 2024-04), the component logs under their C:\k names,
// the CNI and containerd configs, kubeclusterconfig.json.
func aksFiles(t testing.TB, tree fs.FS, node string) files {
	out := collectlogsFiles(t, tree, node, "2024")
	delete(out, "windowsServices.txt") // AgentBaker's copy predates it (29dd8e3, 2024-04)
	delete(out, "hnsportpoolallocs.txt")
	out["collect-windows-logs-output.log"] = []byte("**********************\r\nWindows PowerShell transcript start\r\n")
	for src, dst := range map[string]string{evidence.FileLogKubelet: "kubelet.err.log", evidence.FileLogKubeProxy: "kubeproxy.err.log",
		evidence.FileLogRuntime: "containerd.err.log", evidence.FileLogStartup: "CustomDataSetupScript.log"} {
		if b, ok := nodeFile(t, tree, node, src); ok {
			out[dst] = b
		}
	}
	// The live sweep's tails where the scenario has no snapshot log.
	if _, ok := out["kubelet.err.log"]; !ok {
		if b, ok := nodeFile(t, tree, node, evidence.FileKubeletLog); ok {
			out["kubelet.err.log"] = b
		}
	}
	if _, ok := out["kubeproxy.err.log"]; !ok {
		if b, ok := nodeFile(t, tree, node, evidence.FileKubeProxyLog); ok {
			out["kubeproxy.err.log"] = b
		}
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileCNIConfig); ok {
		out["10-azure.conflist"] = b
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileContainerdConfig); ok {
		out["config.toml"] = b
	}
	out["kubeclusterconfig.json"] = kubeClusterConfig(t, tree)
	return out
}

// kubeClusterConfig is AgentBaker's c:\k\kubeclusterconfig.json with the scenario's
// address plan where the scenario read it from configuration (an inferred lower bound is
// not what the node was given, so it is left out).
func kubeClusterConfig(t testing.TB, tree fs.FS) []byte {
	var c struct {
		ServiceCIDR, ClusterCIDR, KubeDNS string
		Sources                           map[string]string
	}
	if b, err := fs.ReadFile(tree, evidence.PathClusterConfig); err == nil {
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
	}
	pick := func(key, v string) string {
		if strings.HasPrefix(c.Sources[key], "inferred") {
			return ""
		}
		return v
	}
	doc := map[string]any{"Kubernetes": map[string]any{"Network": map[string]string{
		"ServiceCidr": pick("serviceCIDR", c.ServiceCIDR), "ClusterCidr": pick("clusterCIDR", c.ClusterCIDR), "DnsIp": pick("kubeDNS", c.KubeDNS)}}}
	b, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eksFiles writes a node's evidence as eks-log-collector.ps1 zips it (system/...).
func eksFiles(t testing.TB, tree fs.FS, node string) files {
	out := files{}
	host := hostName(t, tree, node)
	build, product := hostOS(t, tree, node)
	out["system/sysinfo"] = ps51(fmt.Sprintf("\nHost Name:                 %s\nOS Name:                   Microsoft %s\nOS Version:                10.0.%s N/A Build %s\n", host, product, build, build))
	out["system/network/hns/network.txt"], out["system/network/hns/endpoint.txt"] = ps51(""), ps51("")
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSNetworks); ok {
		out["system/network/hns/network.txt"] = ps51(jsonAfter(networkTable(items(t, "networks", b)), b))
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSEndpoints); ok {
		out["system/network/hns/endpoint.txt"] = ps51(jsonAfter(selectTable(items(t, "endpoints", b), "IPAddress", "MacAddress", "IsRemoteEndpoint", "State"), b))
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileHNSPolicies); ok {
		out["system/network/hns/policy.txt"] = ps51(string(b))
	}
	var addrs []addr
	if b, ok := nodeFile(t, tree, node, evidence.FileIPAddresses); ok {
		addrs = addresses(t, b)
	}
	out["system/network/ip.txt"] = ps51(ipconfig(host, addrs))
	if b, ok := nodeFile(t, tree, node, evidence.FileRoutes); ok {
		out["system/network/routes.txt"] = ps51(routePrint(routes(t, b), addrs))
	}
	var svcs []service
	if b, ok := nodeFile(t, tree, node, evidence.FileServices); ok {
		svcs = services(t, b)
	}
	out["system/services"] = ps51(serviceList(svcs))
	if b, ok := nodeFile(t, tree, node, evidence.FileKubeletConfig); ok {
		out["system/kubelet/kubelet-config.json"] = b
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileCNIConfig); ok {
		out["system/cni/vpc-bridge.conf"] = b
	}
	for src, dst := range map[string]string{evidence.FileKubeletLog: "system/kubelet/kubelet-service.csv", evidence.FileKubeProxyLog: "system/kube-proxy/kube-proxy-service.csv"} {
		if b, ok := nodeFile(t, tree, node, src); ok {
			out[dst] = eventCSV(string(b), host)
		}
	}
	out["system/events/System.evtx"] = []byte("ElfFile\x00")
	out["system/volumes"] = ps51("\nName Used (GB) Free (GB) Provider   Root\n")
	return out
}

// eventCSV is `Get-WinEvent -ProviderName X | Export-CSV` in Windows PowerShell 5.1:
// ASCII, a #TYPE line, every field quoted, the newest event first.
func eventCSV(log, host string) []byte {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(log, "\r\n", "\n"), "\n"), "\n")
	var b strings.Builder
	b.WriteString("#TYPE System.Diagnostics.Eventing.Reader.EventLogRecord\r\n\"Message\",\"Id\",\"Level\",\"ProviderName\",\"LogName\",\"MachineName\",\"TimeCreated\"\r\n")
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString(q(lines[i]) + `,"0","4","kubelet","EKS",` + q(host) + `,"12/1/2026 9:00:00 PM"` + "\r\n")
	}
	return []byte(b.String())
}

// antreaFiles writes a node's evidence as Antrea's Windows agent support bundle holds
// it: powershell's console output of each command, as it came.
func antreaFiles(t testing.TB, tree fs.FS, node string) files {
	out := files{"agentinfo": []byte("apiVersion: crd.antrea.io/v1beta1\nkind: AntreaAgentInfo\nmetadata:\n  name: " + node +
		"\nnodeRef:\n  kind: Node\n  name: " + node + "\nversion: v2.4.0\n")}
	for src, dst := range map[string]string{evidence.FileHNSNetworks: "HNSNetwork", evidence.FileHNSEndpoints: "HNSEndpoint"} {
		// A command that fails makes the dumper return its error: no file.
		if b, ok := nodeFile(t, tree, node, src); ok {
			recs, err := paste.RecordsFromJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			out[dst] = []byte(paste.FormatList(recs, 0, paste.WordWrap, 0))
		}
	}
	var addrs []addr
	if b, ok := nodeFile(t, tree, node, evidence.FileIPAddresses); ok {
		addrs = addresses(t, b)
	}
	out["ipconfig"] = []byte(ipconfig(hostName(t, tree, node), addrs))
	out["routes"] = []byte(routePrint(nil, addrs))
	if b, ok := nodeFile(t, tree, node, evidence.FileRoutes); ok {
		out["routes"] = []byte(routePrint(routes(t, b), addrs))
	}
	if b, ok := nodeFile(t, tree, node, evidence.FileKubeletLog); ok {
		out["logs/kubelet/kubelet.exe."+hostName(t, tree, node)+".SYSTEM.log.INFO.20261201-210000.4242"] = b
	}
	out["network-adapters"] = []byte("\nName      InterfaceDescription\n")
	out["flows"], out["ovsports"] = []byte(""), []byte("")
	return out
}

// dumpFiles writes the scenario's cluster side as `kubectl cluster-info dump -A
// --output-directory` does: nodes.json and per namespace events, services, daemonsets
// and pods (the other kinds and the pod logs as empty lists and files).
func dumpFiles(t testing.TB, tree fs.FS) files {
	out := files{}
	if b, err := fs.ReadFile(tree, evidence.PathNodes); err == nil {
		out["nodes.json"] = relist(t, b, "NodeList", "")
	}
	nss := map[string]bool{"kube-system": true, "default": true}
	for kind, p := range map[string]string{"EventList": evidence.PathEvents, "ServiceList": evidence.PathServices,
		"DaemonSetList": evidence.PathDaemonSets, "PodList": evidence.PathPods} {
		b, err := fs.ReadFile(tree, p)
		if err != nil {
			continue
		}
		for _, ns := range namespaces(t, b) {
			nss[ns] = true
		}
		for ns := range nss {
			out[ns+"/"+map[string]string{"EventList": "events", "ServiceList": "services", "DaemonSetList": "daemonsets", "PodList": "pods"}[kind]+".json"] = relist(t, b, kind, ns)
		}
	}
	for ns := range nss {
		for _, k := range []string{"replication-controllers", "deployments", "replicasets"} {
			out[ns+"/"+k+".json"] = []byte(`{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}`)
		}
		for _, kind := range []string{"events", "services", "daemonsets", "pods"} {
			if _, ok := out[ns+"/"+kind+".json"]; !ok {
				out[ns+"/"+kind+".json"] = []byte(`{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}`)
			}
		}
	}
	return out
}

func namespaces(t testing.TB, b []byte) []string {
	var l struct {
		Items []struct{ Metadata struct{ Namespace string } }
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range l.Items {
		if it.Metadata.Namespace != "" {
			out = append(out, it.Metadata.Namespace)
		}
	}
	return out
}

// relist keeps a list's items of one namespace ("" all) as kubectl prints the list.
func relist(t testing.TB, b []byte, kind, ns string) []byte {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	var keep []json.RawMessage
	for _, it := range l.Items {
		var m struct{ Metadata struct{ Namespace string } }
		if err := json.Unmarshal(it, &m); err != nil {
			t.Fatal(err)
		}
		if ns == "" || m.Metadata.Namespace == ns {
			keep = append(keep, it)
		}
	}
	if keep == nil {
		keep = []json.RawMessage{}
	}
	// kubectl prints the list's TypeMeta first.
	doc := struct {
		Kind       string            `json:"kind"`
		APIVersion string            `json:"apiVersion"`
		Metadata   struct{}          `json:"metadata"`
		Items      []json.RawMessage `json:"items"`
	}{Kind: kind, APIVersion: "v1", Items: keep}
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// dumpStdout is the same dump printed to stdout: the lists one after another in
// kubectl's order, each pod's (empty) logs between START and END lines.
func dumpStdout(t testing.TB, tree fs.FS) []byte {
	d := dumpFiles(t, tree)
	var b bytes.Buffer
	b.Write(d["nodes.json"])
	var nss []string
	for p := range d {
		if strings.HasSuffix(p, "/pods.json") {
			nss = append(nss, strings.TrimSuffix(p, "/pods.json"))
		}
	}
	sort.Strings(nss)
	for _, ns := range nss {
		for _, k := range []string{"events", "replication-controllers", "services", "daemonsets", "deployments", "replicasets", "pods"} {
			b.Write(d[ns+"/"+k+".json"])
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "==== START logs for container c of pod %s/p ====\nI1201 21:00:00.000000       1 main.go:1] {\"not\": \"json list\"}\n==== END logs for container c of pod %s/p ====\n", ns, ns)
	}
	return b.Bytes()
}

// zipped packs files as Windows PowerShell 5.1's Compress-Archive does: backslashes
// between folders.
func zipped(t testing.TB, dir, name string, fs files) string {
	p := filepath.Join(dir, name)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range sortedNames(fs) {
		f, err := w.Create(strings.ReplaceAll(n, "/", `\`))
		if err != nil {
			t.Fatal(err)
		}
		f.Write(fs[n])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func tarGz(t testing.TB, dir, name string, fs files) string {
	p := filepath.Join(dir, name)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range sortedNames(fs) {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(fs[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(fs[n])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func folder(t testing.TB, dir string, fs files) string {
	for n, b := range fs {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sortedNames(fs files) []string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
