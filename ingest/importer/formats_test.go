package importer_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
)

// pasteFixture reads one of testdata/pastes (the project's own pastes, each in the
// shape of a real one; testdata/pastes/SOURCES.md says where each shape was seen).
func pasteFixture(t *testing.T, name string) importer.Input {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pastes", name))
	if err != nil {
		t.Fatal(err)
	}
	return importer.Input{Name: name, Data: b}
}

// TestPasteGoldens imports every fixture of testdata/pastes to its golden.
func TestPasteGoldens(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "pastes", "*.txt"))
	if err != nil || len(names) < 7 {
		t.Fatalf("%d fixtures: %v", len(names), err)
	}
	for _, n := range names {
		base := filepath.Base(n)
		importGolden(t, pasteFixture(t, base), filepath.Join("testdata", "golden", "pastes", strings.TrimSuffix(base, ".txt")+".json"))
	}
}

// valuesAs decodes a block's values with an evidence decoder: the values are the
// typed objects the JSON of the same command gives.
func valuesAs[T any](t *testing.T, b importer.BlockReport, dec func(string, []byte) (T, error)) T {
	t.Helper()
	raw, err := json.Marshal(b.Values)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dec("values", raw)
	if err != nil {
		t.Fatalf("block %s: values do not decode: %v\n%s", b.Lines, err, raw)
	}
	return v
}

func TestDescribePod(t *testing.T) {
	res := importGoldenless(t, pasteFixture(t, "describe-pod_flannel-os-mismatch_old-kubectl.txt"))
	evs, err := decode.Events("x", file(t, res, evidence.Events))
	if err != nil || len(evs) != 3 {
		t.Fatalf("events %v, %v", evs, err)
	}
	sb := evs[1]
	if sb.Reason != "FailedCreatePodSandBox" || sb.Type != "Warning" || sb.Source.Host != "w1" || sb.InvolvedObject.Name != "kube-flannel-ds-windows-amd64-9tffg" ||
		!strings.Contains(sb.Message, "does not match the host operating system.\n(extra info:") || evs[2].Count != 3 {
		t.Errorf("events: %+v", evs)
	}
	pods := valuesAs(t, res.Report.Blocks[0], decode.Pods)
	p := pods[0]
	if p.Namespace != "kube-system" || p.Spec.NodeName != "w1" || p.Status.HostIP != "10.7.1.221" || p.Status.Phase != "Pending" ||
		p.Status.ContainerStatuses[0].State.Waiting.Reason != "ContainerCreating" || p.Labels["app"] != "flannel" || len(p.Status.Conditions) != 4 {
		t.Errorf("pod: %+v", p)
	}
	res = importGoldenless(t, pasteFixture(t, "describe-pod_iis-crashloop_containerd.txt"))
	evs, _ = decode.Events("x", file(t, res, evidence.Events))
	// New kubectl prints only "kubelet": the event is the pod's node's kubelet's.
	if len(evs) != 3 || evs[0].Source.Host != "akswin000002" || evs[2].Count != 180 {
		t.Errorf("events: %+v", evs)
	}
	pods = valuesAs(t, res.Report.Blocks[0], decode.Pods)
	cs := pods[0].Status.ContainerStatuses[0]
	if pods[0].Status.PodIP != "10.240.0.52" || len(pods[0].Status.PodIPs) != 1 || cs.RestartCount != 21 || cs.LastTerminationState.Terminated.ExitCode != -1073741510 ||
		cs.State.Waiting.Reason != "CrashLoopBackOff" || !strings.HasPrefix(cs.ContainerID, "containerd://") || cs.LastTerminationState.Terminated.StartedAt.IsZero() {
		t.Errorf("pod: %+v", pods[0])
	}
	if _, ok := res.Files[evidence.PathPods]; ok {
		t.Error("a describe wrote pods.json")
	}
}

// TestDescribePodWrapped: a terminal narrower than kubectl's lines cuts them; cut at
// 80, 100, 120 and 140 columns the describe reads back to the same pod and events.
func TestDescribePodWrapped(t *testing.T) {
	for _, name := range []string{"describe-pod_flannel-os-mismatch_old-kubectl.txt", "describe-pod_iis-crashloop_containerd.txt"} {
		in := pasteFixture(t, name)
		want := importGoldenless(t, in)
		for _, w := range []int{80, 100, 120, 140} {
			got := importGoldenless(t, importer.Input{Name: name, Data: []byte(paste.TerminalWrap(string(in.Data), w, false))})
			what := name + " at " + strconv.Itoa(w)
			sameJSON(t, what+" events", want.Files[evidence.PathEvents], got.Files[evidence.PathEvents])
			a, _ := json.Marshal(want.Report.Blocks[0].Values)
			b, _ := json.Marshal(got.Report.Blocks[0].Values)
			sameJSON(t, what+" pods", a, b)
		}
	}
}

func sameJSON(t *testing.T, what string, want, got []byte) {
	t.Helper()
	var a, b any
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil {
		t.Fatalf("%s: not JSON:\n%s\n%s", what, want, got)
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if string(x) != string(y) {
		t.Errorf("%s differs:\nwant %s\ngot  %s", what, x, y)
	}
}

func importGoldenless(t *testing.T, in importer.Input) importer.Result {
	t.Helper()
	res, err := importer.Import([]importer.Input{in}, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRuntimeTables(t *testing.T) {
	res := importGoldenless(t, pasteFixture(t, "crictl_pods-and-ps_containerd-ws2022.txt"))
	if len(res.Files) != 0 {
		t.Errorf("crictl tables wrote %v", res.Files)
	}
	ctrs := valuesAs(t, res.Report.Blocks[0], decode.DecodeContainers)
	if len(ctrs) != 3 || ctrs[2].PodName != "iis-6c559f5868-vscxm" || ctrs[2].State != "SANDBOX_NOTREADY" || ctrs[0].PodUID != "" {
		t.Errorf("crictl pods: %+v", ctrs)
	}
	if b := res.Report.Blocks[1]; b.Recognized != string(paste.CrictlPs) || b.Parsed != 3 {
		t.Errorf("crictl ps: %+v", b)
	}
	res = importGoldenless(t, pasteFixture(t, "ctr_images-and-containers_k8s.io.txt"))
	imgs, err := decode.DecodeImages("x", file(t, res, evidence.Images))
	if err != nil || len(imgs) != 2 || imgs[0].Tags[0] != "mcr.microsoft.com/oss/kubernetes/pause:3.9" || len(imgs[0].Tags) != 1 {
		t.Errorf("ctr images: %+v, %v", imgs, err)
	}
	// Without -n k8s.io, ctr lists the default namespace: not the kubelet's images.
	text := strings.ReplaceAll(string(pasteFixture(t, "ctr_images-and-containers_k8s.io.txt").Data), "ctr -n k8s.io ", "ctr ")
	res = importGoldenless(t, importer.Input{Name: "ctr", Data: []byte(text)})
	if len(res.Files) != 0 || !strings.Contains(res.Report.Blocks[0].Note, "k8s.io") {
		t.Errorf("ctr images without a namespace: %+v", res.Report.Blocks[0])
	}
}

func TestNetshAndNetCmdlets(t *testing.T) {
	res := importGoldenless(t, pasteFixture(t, "netsh_show-interfaces-route-addresses.txt"))
	routes, err := decode.DecodeRoutes("x", file(t, res, evidence.Routes))
	if err != nil || len(routes) != 5 || routes[0].NextHop != "10.240.0.1" || routes[0].IfIndex != 11 || routes[1].InterfaceAlias != "vEthernet (Ethernet)" ||
		routes[1].NextHop != "0.0.0.0" || routes[3].RouteMetric != 1 {
		t.Errorf("routes %+v, %v", routes, err)
	}
	addrs, err := decode.DecodeIPAddresses("x", file(t, res, evidence.IPAddresses))
	if err != nil || len(addrs) != 2 || addrs[1].IPAddress != "172.28.96.1" || addrs[1].PrefixLength != 20 || addrs[1].InterfaceAlias != "vEthernet (nat)" {
		t.Errorf("addresses %+v, %v", addrs, err)
	}
	ifs, _ := res.Report.Blocks[0].Values.([]map[string]any)
	if len(ifs) != 4 || ifs[2]["MTU"] != int64(1450) || ifs[2]["Name"] != "vEthernet (Ethernet)" {
		t.Errorf("interfaces %v", ifs)
	}
	res = importGoldenless(t, pasteFixture(t, "getnet_ipinterface-and-adapter.txt"))
	ipifs, _ := res.Report.Blocks[0].Values.([]map[string]any)
	ads, _ := res.Report.Blocks[1].Values.([]map[string]any)
	if len(ipifs) != 4 || ipifs[1]["NlMtu"] != int64(1450) || ipifs[1]["Dhcp"] != "Enabled" || len(res.Report.Blocks[0].Leftover) != 0 ||
		len(ads) != 2 || ads[0]["ifIndex"] != int64(11) || ads[0]["MacAddress"] != "00-0D-3A-1B-2C-3D" {
		t.Errorf("Get-NetIPInterface %v, Get-NetAdapter %v", ipifs, ads)
	}
	res = importOne(t, "netadapter_get-netadapter_gce-ws1809_l2bridge-created_01.txt")
	ads, _ = res.Report.Blocks[0].Values.([]map[string]any)
	if len(ads) != 5 || ads[1]["Name"] != "vEthernet (Ethernet) 3" || ads[1]["InterfaceDescription"] != "" || ads[4]["MacAddress"] != "42-01-0A-8A-00-05" ||
		ads[4]["ifIndex"] != int64(8) || ads[0]["LinkSpeed"] != "100 Gbps" {
		t.Errorf("real Get-NetAdapter: %v", ads)
	}
}

// TestSysteminfoLocalized: systeminfo's labels are localized; the build is read from
// the OS version line in English and German, into a host.json whose boot time and
// revision are not shown (systeminfo prints neither in the snippet's form).
func TestSysteminfoLocalized(t *testing.T) {
	en := string(pasteFixture(t, "systeminfo_ver_ws2019.txt").Data)
	de := strings.NewReplacer("Host Name:    ", "Hostname:     ", "OS Name:   ", "Betriebssystemname:   ",
		"OS Version:", "Betriebssystemversion:", "System Boot Time:", "Systemstartzeit:").Replace(en)
	for lang, text := range map[string]string{"en": en, "de": de} {
		res := importGoldenless(t, importer.Input{Name: lang, Data: []byte(text)})
		b := res.Report.Blocks[0]
		host, err := decode.DecodeHost("x", file(t, res, evidence.Host))
		if b.Recognized != string(paste.SystemInfo) || err != nil || host.CurrentBuild != "17763" || host.ComputerName == "" ||
			host.Shown("LastBootUpTime") || host.Shown("CollectedAt") {
			t.Errorf("%s: %+v, %+v, %v", lang, b, host, err)
		}
	}
}

// TestWindowsSideVariants: what ran on the node may come through a serial console
// (every line prefixed) or PowerShell remoting ([node]: PS C:\>) and reads the same.
func TestWindowsSideVariants(t *testing.T) {
	for _, name := range []string{"netsh_show-interfaces-route-addresses.txt", "ctr_images-and-containers_k8s.io.txt",
		"crictl_pods-and-ps_containerd-ws2022.txt", "getnet_ipinterface-and-adapter.txt", "systeminfo_ver_ws2019.txt"} {
		in := pasteFixture(t, name)
		want := importGoldenless(t, in)
		text := strings.TrimSuffix(string(in.Data), "\n")
		serial := "2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: "
		for vn, v := range map[string]string{
			"serial":   serial + strings.ReplaceAll(text, "\n", "\n"+serial) + "\n",
			"remoting": strings.NewReplacer(`PS C:\k> `, `[win-1]: PS C:\k> `, `PS C:\> `, `[win-1]: PS C:\> `, `C:\k>`, `[win-1]: PS C:\k> `).Replace(text) + "\n",
			"crlf":     strings.ReplaceAll(text, "\n", "\r\n") + "\r\n",
		} {
			got := importGoldenless(t, importer.Input{Name: name, Data: []byte(v)})
			if len(got.Files) != len(want.Files) || len(got.Report.Blocks) != len(want.Report.Blocks) {
				t.Fatalf("%s %s: %d files, %d blocks; want %d, %d", name, vn, len(got.Files), len(got.Report.Blocks), len(want.Files), len(want.Report.Blocks))
			}
			for p, b := range want.Files {
				sameJSON(t, name+" "+vn+" "+p, b, got.Files[p])
			}
			for i, b := range want.Report.Blocks {
				x, _ := json.Marshal(b.Values)
				y, _ := json.Marshal(got.Report.Blocks[i].Values)
				if string(x) != string(y) {
					t.Errorf("%s %s block %d values differ:\nwant %s\ngot  %s", name, vn, i, x, y)
				}
			}
		}
	}
}

// TestCLITablesWrapped: docker, crictl and ctr print tables as wide as their cells; a
// terminal cuts them at its width. At 80, 100, 120 and 140 columns, with the pieces'
// trailing spaces kept or lost, each reads back to the unwrapped table's values.
func TestCLITablesWrapped(t *testing.T) {
	ins := []importer.Input{pasteFixture(t, "crictl_pods-and-ps_containerd-ws2022.txt"), pasteFixture(t, "ctr_images-and-containers_k8s.io.txt"),
		realSample(t, "docker-images_servercore-nanoserver_no-pause_azure-ws1809_pre-join_01.txt"),
		realSample(t, "ctr-tasks_k8s.io_task-ls_trailing-spaces_ws-unknown_01.txt")}
	for _, in := range ins {
		want := importGoldenless(t, in)
		for _, w := range []int{80, 100, 120, 140} {
			for _, strip := range []bool{false, true} {
				what := in.Name + " at " + strconv.Itoa(w) + " strip " + strconv.FormatBool(strip)
				got := importGoldenless(t, importer.Input{Name: in.Name, Data: []byte(paste.TerminalWrap(string(in.Data), w, strip))})
				if len(got.Report.Blocks) != len(want.Report.Blocks) {
					t.Fatalf("%s: %d blocks, want %d", what, len(got.Report.Blocks), len(want.Report.Blocks))
				}
				for p, b := range want.Files {
					sameJSON(t, what+" "+p, b, got.Files[p])
				}
				for i, b := range want.Report.Blocks {
					x, _ := json.Marshal(b.Values)
					y, _ := json.Marshal(got.Report.Blocks[i].Values)
					if string(x) != string(y) || b.Recognized != got.Report.Blocks[i].Recognized {
						t.Errorf("%s block %d: %s %s, want %s %s", what, i, got.Report.Blocks[i].Recognized, y, b.Recognized, x)
					}
				}
			}
		}
	}
}

// TestDescribeNodesWrapped: every scenario's nodes, described and cut by a terminal
// at 80, 100, 120 and 140 columns, import to the nodes.json of the unwrapped describe.
func TestDescribeNodesWrapped(t *testing.T) {
	n := 0
	for _, name := range scenarios.Names() {
		tree, _, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := fs.ReadFile(tree, evidence.PathNodes)
		if err != nil {
			continue
		}
		nodes, err := decode.Nodes(evidence.PathNodes, data)
		if err != nil {
			t.Fatal(err)
		}
		text := "$ kubectl describe nodes\n" + describeNodes(nodes)
		want := importGoldenless(t, importer.Input{Name: name, Data: []byte(text)})
		for _, w := range []int{80, 100, 120, 140} {
			wrapped := paste.TerminalWrap(text, w, false)
			got := importGoldenless(t, importer.Input{Name: name, Data: []byte(wrapped)})
			sameJSON(t, name+" at "+strconv.Itoa(w), want.Files[evidence.PathNodes], got.Files[evidence.PathNodes])
			if wrapped != text {
				n++ // the terminal did cut something
			}
		}
	}
	if n == 0 {
		t.Fatal("no describe was wide enough for a terminal to cut")
	}
}
