package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

func realSample(t *testing.T, name string) importer.Input {
	t.Helper()
	for _, d := range []string{os.Getenv("WTS_REAL_OUTPUTS"), "../../../shared/real-outputs", "../../../../shared/real-outputs"} {
		if d == "" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
			return importer.Input{Name: name, Data: b}
		}
	}
	t.Skip("no real-outputs folder (set WTS_REAL_OUTPUTS)")
	return importer.Input{}
}

func importOne(t *testing.T, name string) importer.Result {
	t.Helper()
	res, err := importer.Import([]importer.Input{realSample(t, name)}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func file(t *testing.T, res importer.Result, key evidence.Ref) []byte {
	t.Helper()
	b, ok := res.Files[key.Path("win-1")]
	if !ok {
		rep, _ := res.ReportJSON()
		t.Fatalf("no %s imported:\n%s", key.Path("win-1"), rep)
	}
	return b
}

func TestRealHNSNetworks(t *testing.T) {
	cases := []struct {
		sample               string
		names, types, prefix []string
		mgmt                 string
	}{
		{"hns-networks_list_nat+l2bridge-External_gce-ws1809_healthy_01.txt", []string{"nat", "External"}, []string{"nat", "L2Bridge"}, []string{"172.24.144.0/20", "192.168.255.0/30"}, "10.138.0.5"},
		{"hns-networks_list_Calico-overlay_wrong-mgmt-ip-10.0.2.15_vagrant_broken_04.txt", []string{"Calico"}, []string{"Overlay"}, []string{"100.244.206.64/26"}, "10.0.2.15"},
		{"hns-networks_list_Calico-overlay_fixed-mgmt-ip_lost-indent_vagrant_healthy_05.txt", []string{"Calico"}, []string{"Overlay"}, []string{"100.244.206.64/26"}, "10.20.30.11"},
		{"hns-networks_list_External-overlay_kubecluster-join-azure_ws1809_120col-wrap_03.txt", []string{"External"}, []string{"overlay"}, []string{"192.168.255.0/30"}, "172.16.18.5"},
		{"hns-networks_list_two-nat-only_antrea-ovs-broken_runspaceid-arraylist_06.txt", []string{"2bd756dfe237f4b71d924c093ebca042c97e9cad9317c24c4be1f1462a96bac5", "nat"}, []string{"nat", "nat"}, []string{"172.22.16.0/20", "172.30.208.0/20"}, ""},
	}
	for _, c := range cases {
		res := importOne(t, c.sample)
		nets, err := evidence.HNSNetworks.Decode("x", file(t, res, evidence.HNSNetworks))
		if err != nil {
			t.Fatal(err)
		}
		if len(nets) != len(c.names) {
			t.Fatalf("%s: %d networks, want %d", c.sample, len(nets), len(c.names))
		}
		for i, n := range nets {
			if string(n.Name) != c.names[i] || string(n.Type) != c.types[i] || strings.Join(n.Prefixes(), ",") != c.prefix[i] {
				t.Errorf("%s: network %d = %s %s %v, want %s %s %s", c.sample, i, n.Name, n.Type, n.Prefixes(), c.names[i], c.types[i], c.prefix[i])
			}
		}
		if got := string(nets[len(nets)-1].ManagementIP); got != c.mgmt {
			t.Errorf("%s: ManagementIP %q, want %q", c.sample, got, c.mgmt)
		}
		// The console collapsed the subnets' policies: the report says so and names the command.
		b := res.Report.Blocks[0]
		if len(b.Missing) == 0 || !strings.Contains(b.Recollect, "ConvertTo-Json") {
			t.Errorf("%s: the report does not record what the list view hid: %+v", c.sample, b)
		}
	}
}

func TestRealEndpointsAndPolicies(t *testing.T) {
	res := importOne(t, "hns-endpoints_list_antrea-transparent_stuck-remove-state3_tkg_broken_02.txt")
	var eps []map[string]any
	if err := json.Unmarshal(file(t, res, evidence.HNSEndpoints), &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 || eps[0]["State"] != float64(3) || eps[0]["RemoveProcessingStartTime"] != float64(132768214068678123) ||
		eps[0]["VirtualNetworkName"] != "antrea-hnsnetwork" {
		t.Errorf("stale endpoint: %v", eps)
	}
	res = importOne(t, "hns-endpoints_list_calico-overlay_author-trimmed-fields_ws2019_healthy_01.txt")
	if err := json.Unmarshal(file(t, res, evidence.HNSEndpoints), &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 4 || eps[0]["IsRemoteEndpoint"] != true || eps[3]["IPAddress"] != "100.244.206.70" {
		t.Errorf("trimmed endpoints: %v", eps)
	}
	res = importOne(t, "hns-policylist_list_ELB-clusterip_calico-overlay_ws2019_healthy_01.txt")
	var pls []map[string]any
	if err := json.Unmarshal(file(t, res, evidence.HNSPolicies), &pls); err != nil {
		t.Fatal(err)
	}
	refs, _ := pls[0]["References"].([]any)
	if len(pls) != 1 || len(refs) != 3 || pls[0]["IsApplied"] != false {
		t.Errorf("policy list: %v", pls)
	}
}

func TestRealServicesImagesLogs(t *testing.T) {
	res := importOne(t, "service-newservice-list_kubelet-stopped_kubecluster_ws1809_01.txt")
	svcs, err := decode.DecodeServices("x", file(t, res, evidence.WindowsServices))
	if err != nil || len(svcs) != 1 || svcs[0].Name != "Kubelet" || svcs[0].Status != "Stopped" || svcs[0].StartType != "" {
		t.Errorf("services %+v, %v", svcs, err)
	}
	// The SCM wrapper's message before the list view is reported, not parsed.
	if res.Report.Blocks[0].Recognized != "unrecognized" || len(res.Report.Blocks[0].FirstLines) != 1 {
		t.Errorf("leading text: %+v", res.Report.Blocks[0])
	}
	res = importOne(t, "docker-images_servercore-nanoserver_no-pause_azure-ws1809_pre-join_01.txt")
	imgs, err := decode.DecodeImages("x", file(t, res, evidence.Images))
	if err != nil || len(imgs) != 2 || imgs[0].Tags[0] != "mcr.microsoft.com/windows/servercore:ltsc2019" || imgs[1].ID != "e9bbec97e222" || imgs[0].OSVersion != "" {
		t.Errorf("images %+v, %v", imgs, err)
	}
	res = importOne(t, "kubeproxy-log_winkernel_overlay-loadbalancer-created_calico_healthy_01.log")
	if log := string(file(t, res, evidence.KubeProxyLog)); !strings.Contains(log, "Hns LoadBalancer resource created") {
		t.Errorf("kube-proxy log: %q", log)
	}
	res = importOne(t, "antrea-agent-log_windows_apiserver-svc-unreachable_console-joined-lines_broken_01.log")
	if b := res.Report.Blocks[0]; b.Recognized != "klog log" || b.Evidence != "" || !strings.Contains(b.Note, "antrea-agent") {
		t.Errorf("antrea log: %+v", b)
	}
}

// TestRealHnsdiag: hnsdiag's lists (names and IDs, no types or subnets) are parsed
// into the report, never written as HNS evidence.
func TestRealHnsdiag(t *testing.T) {
	for s, want := range map[string]map[string]int{
		"hnsdiag-list-all_vxlan0_kubecluster-join-azure_ws1809_healthy_01.txt": {"networks": 3, "endpoints": 6, "loadbalancers": 4},
		"hnsdiag-list-endpoints_antrea-hnsnetwork_tkg_02.txt":                  {"endpoints": 3},
	} {
		res := importOne(t, s)
		b := res.Report.Blocks[0]
		v, _ := b.Values.(map[string]any)
		if len(res.Files) != 0 || b.Note == "" || b.Recollect == "" || len(v) != len(want) {
			t.Errorf("%s: %+v", s, b)
		}
		for sec, n := range want {
			rows, _ := v[sec].([]map[string]any)
			if len(rows) != n {
				t.Errorf("%s: %d %s, want %d: %v", s, len(rows), sec, n, rows)
			}
		}
		if eps, _ := v["endpoints"].([]map[string]any); len(eps) > 0 && (eps[0]["Virtual Network Name"] == "" || eps[0]["ID"] == "") {
			t.Errorf("%s: endpoint columns: %v", s, eps[0])
		}
	}
}

// TestNodeTablePartial: kubectl get nodes becomes cluster/nodes.json holding what the
// columns show, each node marked with the fields it does not show (so the probes skip
// on them instead of reading an empty podCIDR), and the report lists them.
func TestNodeTablePartial(t *testing.T) {
	for _, c := range []struct {
		sample, node, ready string
	}{
		{"kubectl-get-nodes-wide_mixed_calico-hostprocess-containerd1.6_ws2019_healthy_08.txt", "winw1", "True"},
		{"kubectl-get-nodes_mixed_one-win-NotReady_kubecluster_07.txt", "k83winworker3", "False"},
	} {
		res := importOne(t, c.sample)
		b := res.Report.Blocks[0]
		if b.Recognized != "kubectl get nodes table" || b.Parsed < 2 || b.Recollect != "`kubectl get nodes -o json`" || len(b.Missing) == 0 {
			t.Errorf("%s: %+v", c.sample, b)
		}
		nodes, err := decode.Nodes("x", file(t, res, evidence.ClusterNodes))
		if err != nil {
			t.Fatal(err)
		}
		self, err := decode.FindNode(nodes, c.node)
		if err != nil {
			t.Fatal(err)
		}
		if len(self.Status.Conditions) != 1 || string(self.Status.Conditions[0].Status) != c.ready ||
			!slices.Contains(decode.UnknownFields(self), "spec.podCIDR") {
			t.Errorf("%s: node %s = %+v, unknown %v", c.sample, c.node, self.Status, decode.UnknownFields(self))
		}
	}
}

func TestRealIpconfig(t *testing.T) {
	res := importOne(t, "ipconfig_basic_azure-ws1809_vEthernet-nat-only_pre-join_01.txt")
	addrs, err := decode.DecodeIPAddresses("x", file(t, res, evidence.IPAddresses))
	if err != nil || len(addrs) != 2 || addrs[0].IPAddress != "10.0.0.6" || addrs[0].PrefixLength != 24 || addrs[0].InterfaceAlias != "Ethernet 2" ||
		addrs[1].IPAddress != "172.28.96.1" || addrs[1].PrefixLength != 20 || addrs[1].InterfaceAlias != "vEthernet (nat)" {
		t.Errorf("addresses %+v, %v", addrs, err)
	}
}

// TestLocalizedIpconfigAndSerialSc: a German ipconfig /all, and sc query plus sc qc
// from a serial console, each line prefixed, merged into one service.
func TestLocalizedIpconfigAndSerialSc(t *testing.T) {
	de := "C:\\k>ipconfig /all\r\n\r\nWindows-IP-Konfiguration\r\n\r\n   Hostname  . . . . . . . . . . . . : win-1\r\n\r\n" +
		"Ethernet-Adapter vEthernet (Ethernet):\r\n\r\n   IPv4-Adresse  . . . . . . . . . . : 10.240.0.30(Bevorzugt)\r\n   Subnetzmaske  . . . . . . . . . . : 255.255.255.0\r\n"
	res, err := importer.Import([]importer.Input{{Name: "de.txt", Data: []byte(de)}}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := decode.DecodeIPAddresses("x", file(t, res, evidence.IPAddresses))
	if err != nil || len(addrs) != 1 || addrs[0].IPAddress != "10.240.0.30" || addrs[0].PrefixLength != 24 || addrs[0].InterfaceAlias != "vEthernet (Ethernet)" {
		t.Errorf("German ipconfig: %+v, %v", addrs, err)
	}
	p := "2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: "
	sc := strings.Join([]string{"PS C:\\> sc.exe query kubelet", "", "SERVICE_NAME: kubelet",
		"        TYPE               : 10  WIN32_OWN_PROCESS", "        STATE              : 1  STOPPED",
		"        WIN32_EXIT_CODE    : 1077  (0x435)", "PS C:\\> sc.exe qc kubelet", "[SC] QueryServiceConfig SUCCESS", "",
		"SERVICE_NAME: kubelet", "        START_TYPE         : 2   AUTO_START",
		"        BINARY_PATH_NAME   : C:\\k\\kubelet.exe --v=2"}, "\n"+p)
	res, err = importer.Import([]importer.Input{{Name: "serial.txt", Data: []byte(p + sc + "\n")}}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := decode.DecodeServices("x", file(t, res, evidence.WindowsServices))
	if err != nil || len(svcs) != 1 || svcs[0].Status != "Stopped" || svcs[0].StartType != "Automatic" || svcs[0].PathName != "C:\\k\\kubelet.exe --v=2" {
		rep, _ := res.ReportJSON()
		t.Errorf("sc query + qc: %+v, %v\n%s", svcs, err, rep)
	}
}

// TestVersionPartialHost: ver gives the build and UBR, which become a host.json whose
// other fields are recorded as not shown (NotShown, and missing in the report).
func TestVersionPartialHost(t *testing.T) {
	res, err := importer.Import([]importer.Input{{Name: "ver.txt", Data: []byte("C:\\k>cmd /c ver\n\nMicrosoft Windows [Version 10.0.17763.2628]\n")}}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Report.Blocks[0]
	host, err := decode.DecodeHost("x", file(t, res, evidence.Host))
	if err != nil || host.CurrentBuild != "17763" || host.UBR != 2628 || !host.Shown("UBR") || host.Shown("ComputerName") ||
		host.Version() != "10.0.17763.2628" || len(b.Missing) != 9 || !strings.Contains(b.Recollect, "CurrentBuild") {
		t.Errorf("ver: %+v, %+v, %v", b, host, err)
	}
}

// TestCrictlImages: crictl's table (IMAGE, TAG, IMAGE ID) gives the same shape as
// docker's; a <none> tag gives no RepoTags.
func TestCrictlImages(t *testing.T) {
	text := "PS C:\\> crictl images\nIMAGE                                     TAG                 IMAGE ID            SIZE\n" +
		"mcr.microsoft.com/oss/kubernetes/pause    3.9                 a1e8bf0b2f3cd       111MB\n" +
		"docker.io/library/nanoserver              <none>              9f1e0a1bd4c2e       120MB\n"
	res, err := importer.Import([]importer.Input{{Name: "crictl.txt", Data: []byte(text)}}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := decode.DecodeImages("x", file(t, res, evidence.Images))
	if err != nil || len(imgs) != 2 || imgs[0].Tags[0] != "mcr.microsoft.com/oss/kubernetes/pause:3.9" || len(imgs[1].Tags) != 0 {
		t.Errorf("crictl images: %+v, %v", imgs, err)
	}
}

// TestRealNetshDump: the persistent routes and addresses are parsed into the report,
// never written as the node's routes (DHCP and HNS ones are not in a dump).
func TestRealNetshDump(t *testing.T) {
	res := importOne(t, "routes_netsh-dump-ipv4_antrea-winuserspace_multiple-default-routes_05.txt")
	if len(res.Files) != 0 {
		t.Errorf("wrote %v", res.Files)
	}
	b := res.Report.Blocks[0]
	v, _ := b.Values.(map[string]any)
	routes, _ := v["routes"].([]map[string]string)
	addrs, _ := v["addresses"].([]map[string]string)
	if b.Recognized != "netsh dump (IPv4)" || len(routes) != 4 || routes[0]["interface"] != "vEthernet (Ethernet) 2" || len(addrs) != 9 ||
		addrs[2]["mask"] != "255.0.0.0" {
		t.Errorf("netsh dump: %+v", b)
	}
}

// TestRealCNIConfigs: a pasted CNI config (JSON without its command line) is the node's
// CNI config by its shape (cniVersion and a type), written whole.
func TestRealCNIConfigs(t *testing.T) {
	for s, want := range map[string]string{
		"cni-config_flannel-delegate-win-bridge_cbr0_hostgw_psjson_02.conf":          "cbr0",
		"cni-config_flannel-win-overlay_vxlan0_kubecluster-generated-psjson_01.json": "vxlan0",
		"cni-config_wincni-l2bridge_AdditionalArgs_hand-edited-tabs_psjson_03.conf":  "l2bridge",
	} {
		res := importOne(t, s)
		cfg, err := decode.DecodeCNIConfig("x", file(t, res, evidence.CNIConfig))
		if err != nil || cfg.Name != want {
			t.Errorf("%s: %+v, %v", s, cfg, err)
		}
	}
}
