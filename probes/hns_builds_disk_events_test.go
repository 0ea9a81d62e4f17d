package probes

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// podsJSON is a pods list with one running pod on win-1 at ip.
func podsJSON(ip string) string {
	return `{"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},` +
		`"spec":{"nodeName":"win-1","containers":[{"name":"web","image":"x"}]},"status":{"phase":"Running","podIP":"` + ip + `","podIPs":[{"ip":"` + ip + `"}]}}]}`
}

func TestHNSEndpoints(t *testing.T) {
	ev := func(endpoints string) map[string]string {
		return map[string]string{
			"cluster/pods.json":                podsJSON("10.200.2.10"),
			"nodes/win-1/hns-endpoints.json":   endpoints,
			"nodes/win-1/hns-networks.json":    `[{"Name":"nat","Type":"ICS"},{"Name":"l2bridge","Type":"L2Bridge"}]`,
			"nodes/win-1/ip-addresses.json":    `[{"IPAddress":"10.200.2.2","PrefixLength":24,"InterfaceAlias":"vEthernet (cbr0)"}]`,
			"nodes/win-1/processes.json":       `[{"Name":"kube-proxy.exe","CommandLine":"kube-proxy.exe --source-vip=10.200.2.3"}]`,
			"nodes/win-1/kubelet.log":          "E0308 hnsCall failed in Win32: The object already exists. (0x1392)\r\n",
			"nodes/win-1/kube-proxy.log":       "",
			"nodes/win-1/services.json":        `[]`,
			"nodes/win-1/containers.json":      ``,
			"nodes/win-1/hns-policylists.json": `[]`,
		}
	}
	ep := func(id, ip, net string, extra string) string {
		return `{"ID":"` + id + `","IPAddress":"` + ip + `","VirtualNetworkName":"` + net + `","State":2` + extra + `}`
	}
	healthy := "[" + strings.Join([]string{
		ep("A", "10.200.2.10", "l2bridge", ""),
		ep("HOST", "10.200.2.2", "l2bridge", ""),                             // the node's own vNIC
		ep("VIP", "10.200.2.3", "l2bridge", ""),                              // kube-proxy's source VIP
		ep("REMOTE", "10.200.1.9", "l2bridge", `,"IsRemoteEndpoint":"True"`), // a pod on another node
		ep("NAT", "172.27.112.5", "nat", ""),                                 // a docker run container
	}, ",") + "]"
	clOne(t, hnsEndpoints{}, "win-1", clEv(ev(healthy)), Pass, "1 local endpoint(s) for pods, 1 pod IP(s)")

	broken := "[" + strings.Join([]string{
		ep("A", "10.200.2.10", "l2bridge", ""),
		ep("DUP", "10.200.2.10", "l2bridge", ""),
		ep("STUCK", "10.200.2.10", "l2bridge", `,"State":3,"RemoveProcessingStartTime":132768214068678123`),
		ep("LEAK", "10.200.2.11", "l2bridge", ""),
	}, ",") + "]"
	f := clOne(t, hnsEndpoints{}, "win-1", clEv(ev(broken)), Fail, "2 orphaned HNS endpoint(s), 1 duplicated IP(s)",
		"STUCK 10.200.2.10: stuck in removal", "LEAK 10.200.2.11: leaked", "duplicate IP 10.200.2.10 on A, DUP, STUCK",
		"log signature hns-object-exists in nodes/win-1/kubelet.log")
	if f.Fix == nil || !slices.Equal(f.Fix.Params["Id"].([]string), []string{"STUCK", "LEAK"}) ||
		!slices.Equal(f.Fix.Params["IPAddress"].([]string), []string{"10.200.2.10", "10.200.2.11"}) {
		t.Errorf("fix %+v", f.Fix)
	}
	if !slices.Contains(f.Evidence, "nodes/win-1/kubelet.log") {
		t.Errorf("the supporting log line is not cited: %v", f.Evidence)
	}
	absent := ev(healthy)
	delete(absent, "nodes/win-1/hns-endpoints.json")
	clOne(t, hnsEndpoints{}, "win-1", clEv(absent), Skip, "collected by `wintroubleshoot snapshot`")
}

func TestKnownBadBuilds(t *testing.T) {
	host := func(build string, ubr string) map[string]string {
		return map[string]string{"nodes/win-1/host.json": `{"CurrentBuild":"` + build + `","UBR":` + ubr + `}`}
	}
	calico := func(m map[string]string) map[string]string {
		m["nodes/win-1/cni-config.json"] = `{"name":"Calico","cniVersion":"0.3.1","plugins":[{"type":"calico","mode":"vxlan"}]}`
		return m
	}
	flannel := func(m map[string]string) map[string]string {
		m["nodes/win-1/cni-config.json"] = `{"name":"flannel.4096","type":"flannel","delegate":{"type":"sdnoverlay"}}`
		return m
	}
	for _, tc := range []struct {
		files  map[string]string
		status Status
		want   string
	}{
		// One unconfirmed report (calico#8529) is no row of the table: no warn.
		{calico(host("20348", "2581")), Pass, "not in the table"},
		{calico(host("20348", "2582")), Fail, "KB5044281"},
		{calico(host("20348", "2761")), Fail, "microsoft/Windows-Containers#516"},
		{calico(host("20348", "2762")), Pass, "not in the table"},
		// The reports name Calico: on another layout the range warns (issue 25, class 3).
		{flannel(host("20348", "2582")), Warn, "reported with Calico; not reported with flannel (sdnoverlay)"},
		{host("20348", "2700"), Warn, "not reported with this node's CNI"},
		{host("20348", "2321"), Pass, "not in the table"},
		{host("17763", "2628"), Pass, "build 10.0.17763.2628"},
	} {
		f := clOne(t, knownBadBuilds{}, "win-1", clEv(tc.files), tc.status, tc.want)
		if (f.Fix != nil) != (tc.status != Pass) {
			t.Errorf("%s: fix %+v", tc.want, f.Fix)
		}
	}
}

func TestHostDisk(t *testing.T) {
	disk := func(free, size string) map[string]string {
		return map[string]string{"nodes/win-1/disk.json": `{"DeviceID":"C:","FreeSpace":` + free + `,"Size":` + size + `}`}
	}
	clOne(t, hostDisk{}, "win-1", clEv(disk("9", "100")), Fail, "9%", "nodefs.available<10%")
	clOne(t, hostDisk{}, "win-1", clEv(disk("12", "100")), Warn, "imagefs.available<15%")
	clOne(t, hostDisk{}, "win-1", clEv(disk("20", "100")), Pass, "EKS log collector")
	clOne(t, hostDisk{}, "win-1", clEv(disk("50", "100")), Pass, "50%")
	clOne(t, hostDisk{}, "win-1", clEv(disk("1", "0")), Skip, "no size")
	clOne(t, hostDisk{}, "win-1", clEv(nil), Skip, "collected by `wintroubleshoot snapshot`")
}

func TestHNSEvents(t *testing.T) {
	ev := func(scm, hns string) map[string]string {
		return map[string]string{"nodes/win-1/winevent-scm.json": scm, "nodes/win-1/winevent-hns.json": hns}
	}
	crash := `[{"TimeCreated":"2026-12-01T08:00:00Z","Id":7034,"Level":2,"ProviderName":"Service Control Manager","Message":"The Host Network Service service terminated unexpectedly.  It has done this 1 time(s)."}]`
	other := `[{"Id":7031,"Level":2,"ProviderName":"Service Control Manager","Message":"The kubelet service terminated unexpectedly."}]`
	hcs := `[{"Id":11000,"Level":2,"ProviderName":"Microsoft-Windows-Hyper-V-Compute","Message":"Failed: (0xC0370101)"}]`
	f := clOne(t, hnsEvents{}, "win-1", clEv(ev(crash, "[]")), Fail, "terminated unexpectedly 1 time(s)")
	if f.Fix == nil || !f.Fix.Disruptive {
		t.Errorf("an HNS restart is disruptive: %+v", f.Fix)
	}
	clOne(t, hnsEvents{}, "win-1", clEv(ev(other, hcs)), Warn, "1 Host Compute Service error(s)", "ERROR_VMCOMPUTE_IMAGE_MISMATCH")
	clOne(t, hnsEvents{}, "win-1", clEv(ev("[]", "[]")), Pass, "no HNS crash among 0")
	clOne(t, hnsEvents{}, "win-1", clEv(map[string]string{"nodes/win-1/winevent-scm.json": "[]"}), Pass, "HCS events not judged")
}

// TestSignatureWordings: every kube-proxy wording of the missing-network error, the
// runtime's OS mismatch wordings, and noise that must not count.
func TestSignatureWordings(t *testing.T) {
	match := func(line string) []string {
		var ids []string
		for _, s := range signatures() {
			if regexp.MustCompile(`(?i)` + s.re).MatchString(line) {
				ids = append(ids, s.id)
			}
		}
		return ids
	}
	for line, want := range map[string]string{
		"Unable to find Hns Network specified by cbr0. Please check environment variable KUBE_NETWORK":                         "kube-proxy-network-missing",
		"Unable to find HNS Network specified by cbr0. Please check network name and CNI deployment":                           "kube-proxy-network-missing",
		`"Unable to find HNS Network specified. Please check network name and CNI deployment" hnsNetworkName="cbr0"`:           "kube-proxy-network-missing",
		`"Unable to find HNS Network specified, please check network name and CNI deployment" err="x" hnsNetworkName="vxlan0"`: "kube-proxy-network-missing",
		"hcs::CreateComputeSystem abc: The container operating system does not match the host operating system.":               "os-mismatch",
		"failed to create shim task: (0xc0370101)":                                                                             "os-mismatch",
		"Error response from daemon: no matching manifest for windows/amd64 10.0.20348 in the manifest list entries":           "no-windows-manifest",
	} {
		if got := match(line); !slices.Contains(got, want) {
			t.Errorf("%q: matched %v, want %s", line, got, want)
		}
	}
	for _, s := range signatures() {
		if s.source == "" || s.means == "" {
			t.Errorf("signature %s cites no source or says nothing", s.id)
		}
	}
	ev := clEv(map[string]string{"nodes/win-1/kubelet.log": `E0308 perfcounter_nodestats.go:151] "Unable to get Processor Information" err="0x803b0010"` + "\r\n"})
	ev.Memo = evidence.NewMemo()
	ms, read, ignored := C{id: "LOG-SIGNATURES", node: "win-1", ev: ev}.scanLogs(false, evidence.KubeletLog)
	if len(ms) != 0 || ignored != 1 || len(read) != 1 {
		t.Errorf("noise: %d matches, %d ignored, read %v", len(ms), ignored, read)
	}
}

func TestServiceLBs(t *testing.T) {
	services := `{"kind":"List","apiVersion":"v1","items":[` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns","namespace":"kube-system"},"spec":{"clusterIP":"10.96.0.10","selector":{"k8s-app":"kube-dns"},"ports":[{"port":53,"protocol":"UDP"},{"port":53,"protocol":"TCP"}]}},` +
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},"spec":{"clusterIP":"10.96.1.1","selector":{"app":"web"},"ports":[{"port":80,"protocol":"TCP"}]}}]}`
	elb := func(id, vip string, proto, port int, src string, refs ...string) string {
		r := make([]string, len(refs))
		for i, x := range refs {
			r[i] = `"/endpoints/` + strings.ToLower(x) + `"`
		}
		return `{"ID":"` + id + `","Policies":[{"Type":"ELB","VIPs":["` + vip + `"],"Protocol":` + itoa(proto) + `,"InternalPort":` + itoa(port) +
			`,"ExternalPort":` + itoa(port) + `,"SourceVIP":"` + src + `"}],"References":[` + strings.Join(r, ",") + `]}`
	}
	ev := func(policies string) map[string]string {
		return map[string]string{
			"cluster/services.json":            services,
			"nodes/win-1/processes.json":       `[{"Name":"kube-proxy.exe","CommandLine":"kube-proxy.exe"}]`,
			"nodes/win-1/kube-proxy.log":       "",
			"nodes/win-1/hns-endpoints.json":   `[{"ID":"DNS1","IPAddress":"10.244.0.5","IsRemoteEndpoint":true},{"ID":"VIP","IPAddress":"10.244.2.2"}]`,
			"nodes/win-1/hns-policylists.json": policies,
		}
	}
	dnsUDP := elb("U", "10.96.0.10", 17, 53, "10.244.2.2", "DNS1")
	dnsTCP := elb("T", "10.96.0.10", 6, 53, "10.244.2.2", "DNS1")
	web := elb("W", "10.96.1.1", 6, 80, "10.244.2.2", "DNS1")
	clOne(t, serviceLBs{}, "win-1", clEv(ev("["+dnsUDP+","+dnsTCP+","+web+"]")), Pass, "the DNS VIP 10.96.0.10 on UDP and TCP 53")
	f := clOne(t, serviceLBs{}, "win-1", clEv(ev("["+dnsTCP+","+web+"]")), Fail, "no load balancer for the DNS VIP 10.96.0.10 UDP/53")
	if f.Fix == nil || f.Fix.Verify != "SVC-LB-POLICY" {
		t.Errorf("fix %+v", f.Fix)
	}
	clOne(t, serviceLBs{}, "win-1", clEv(ev("["+dnsUDP+","+dnsTCP+"]")), Warn, "Service default/web: no load balancer for 10.96.1.1 TCP/80")
	clOne(t, serviceLBs{}, "win-1", clEv(ev("["+dnsUDP+","+dnsTCP+","+elb("W", "10.96.1.1", 6, 80, "10.244.2.2", "GONE")+"]")), Fail,
		"balances over endpoint GONE, which does not exist")
	clOne(t, serviceLBs{}, "win-1", clEv(ev("["+elb("U", "10.96.0.10", 17, 53, "10.244.2.9", "DNS1")+","+dnsTCP+","+web+"]")), Fail,
		"source VIP 10.244.2.9 has no local endpoint")
	stale := ev("[" + dnsUDP + "," + dnsTCP + "," + web + "]")
	stale["nodes/win-1/hns-networks.json"] = `[{"Name":"vxlan0","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.3.0/24"}]}]`
	clOne(t, serviceLBs{}, "win-1", clEv(stale), Fail, "source VIP 10.244.2.2 is outside the node's pod network (10.244.3.0/24)")
	stopped := ev("[]")
	stopped["nodes/win-1/processes.json"] = `[]`
	clOne(t, serviceLBs{}, "win-1", clEv(stopped), Skip, "kube-proxy is not running")
}

func itoa(n int) string { return strconv.Itoa(n) }
