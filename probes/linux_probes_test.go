package probes_test

import (
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// scenarioMap is a scenario's evidence as a map, to edit files of.
func scenarioMap(t *testing.T, name string) fstest.MapFS {
	t.Helper()
	fsys, _, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func judgeLinux(t *testing.T, m fs.FS, id, node string) probes.Finding {
	t.Helper()
	p, ok := probes.Default().Get(id)
	if !ok {
		t.Fatalf("no probe %s", id)
	}
	return probes.RunProbe(p, node, evidence.Evidence{FS: m})[0]
}

// TestProbesGatedByOS: a Linux worker is judged by the Linux probes only, a Windows node
// by the Windows ones; what a sweep collects follows the same split.
func TestProbesGatedByOS(t *testing.T) {
	reg := probes.Default()
	m := scenarioMap(t, "mixed-hardway-healthy")
	ev := evidence.Evidence{FS: m}
	for node, want := range map[string]evidence.OS{"node-1": evidence.Linux, "win-1": evidence.Windows} {
		if got := evidence.NodeOS(ev, node); got != want {
			t.Errorf("NodeOS(%s) = %s, want %s", node, got, want)
		}
		fs := reg.Run(node, ev)
		if len(fs) != len(reg.IDsOf(want)) {
			t.Errorf("%s: %d findings, want one per %s probe (%d)", node, len(fs), want, len(reg.IDsOf(want)))
		}
		for _, f := range fs {
			if strings.HasPrefix(f.Probe, "LINUX-") != (want == evidence.Linux) {
				t.Errorf("%s (%s) judged by %s", node, want, f.Probe)
			}
		}
	}
	// A Linux worker whose sweep failed before os.json still is Linux (the cluster says so).
	u := fstest.MapFS{"cluster/nodes.json": m["cluster/nodes.json"], "nodes/node-1/sweep.err": {Data: []byte("ssh: connection refused\n")}}
	if got := evidence.NodeOS(evidence.Evidence{FS: u}, "node-1"); got != evidence.Linux {
		t.Errorf("unreachable Linux worker: NodeOS %s", got)
	}
	for _, f := range reg.Run("node-1", evidence.Evidence{FS: u}) {
		if f.Probe != probes.ReachID && !strings.HasPrefix(f.Probe, "LINUX-") {
			t.Errorf("unreachable Linux worker judged by %s", f.Probe)
		}
	}
	win := reg.NodeNeeds(reg.Probes())
	lin := reg.NodeNeedsOf(evidence.Linux, reg.Probes())
	if slices.Contains(win, evidence.FileLinuxRoutes) || !slices.Contains(win, evidence.FileRoutes) {
		t.Errorf("Windows sweep needs %v", win)
	}
	if !slices.Contains(lin, evidence.FileLinuxRoutes) || slices.Contains(lin, evidence.FileRoutes) || slices.Contains(lin, evidence.FileLinuxOS) {
		t.Errorf("Linux sweep needs %v (os.json is the sweep's own, not a probe's)", lin)
	}
	nr, _ := reg.Get("NET-ROUTES")
	if slices.Contains(nr.Needs(), evidence.FileLinuxRoutes) {
		t.Errorf("NET-ROUTES would collect a Linux file on a Windows node: %v", nr.Needs())
	}
}

// TestLinuxRouteFix: the missing reverse route is offered as exactly `ip route add`, with
// the prefix and next hop as data, and the after-state clears both sides.
func TestLinuxRouteFix(t *testing.T) {
	m := scenarioMap(t, "mixed-hardway-route-missing")
	f := judgeLinux(t, m, "LINUX-ROUTES", "node-1")
	if f.Status != probes.Fail || f.Fix == nil {
		t.Fatalf("LINUX-ROUTES: %s %q, fix %v", f.Status, f.Summary, f.Fix)
	}
	want := map[string]any{"Routes": []any{map[string]any{"Prefix": "10.200.2.0/24", "Via": "10.240.0.30"}}}
	if f.Fix.Action != probes.FixLinuxAddRoutes || f.Fix.Kind != probes.NodeScript || !reflect.DeepEqual(f.Fix.Params, want) ||
		!slices.Equal(f.Fix.Commands, []string{"ip route add 10.200.2.0/24 via 10.240.0.30"}) || f.Fix.Verify != "LINUX-ROUTES" {
		t.Errorf("fix %+v", f.Fix)
	}
	back := judgeLinux(t, m, "NET-ROUTES", "win-1")
	if back.Status != probes.Fail || back.Fix != nil || !slices.Contains(back.Evidence, "nodes/node-1/linux-ip-route.json") ||
		!strings.Contains(strings.Join(back.Details, "\n"), "node-1 has no route back") {
		t.Errorf("NET-ROUTES on win-1: %s %q %v %v fix %v", back.Status, back.Summary, back.Details, back.Evidence, back.Fix)
	}
	view, err := scenarios.After("mixed-hardway-route-missing", string(probes.FixLinuxAddRoutes))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"LINUX-ROUTES", "node-1"}, {"NET-ROUTES", "win-1"}} {
		if got := judgeLinux(t, view, c[0], c[1]); got.Status != probes.Pass {
			t.Errorf("after the fix %s on %s: %s %q", c[0], c[1], got.Status, got.Summary)
		}
	}
}

// TestLinuxJudgementsEdges: the cases the scenarios do not show, each from a healthy
// worker with one file changed.
func TestLinuxJudgementsEdges(t *testing.T) {
	const node = "node-1"
	file := func(name string) string { return "nodes/" + node + "/" + name }
	cases := []struct {
		name, probe string
		edit        map[string]string
		want        probes.Status
		has         string // in the summary or details
	}{
		{"swap allowed on purpose", "LINUX-SWAP", map[string]string{
			evidence.FileLinuxSwaps:         "Filename\tType\tSize\tUsed\tPriority\n/swap.img file 2097148 0 -2\n",
			evidence.FileLinuxKubeletConfig: "kind: KubeletConfiguration\nfailSwapOn: false\nmemorySwap:\n  swapBehavior: NoSwap\n"},
			probes.Pass, "swapBehavior NoSwap"},
		{"swap tolerated without NodeSwap", "LINUX-SWAP", map[string]string{
			evidence.FileLinuxSwaps:         "Filename\tType\tSize\tUsed\tPriority\n/swap.img file 2097148 0 -2\n",
			evidence.FileLinuxKubeletConfig: "kind: KubeletConfiguration\nfailSwapOn: false\n"},
			probes.Warn, "NodeSwap is not configured"},
		{"--fail-swap-on=false wins", "LINUX-SWAP", map[string]string{
			evidence.FileLinuxSwaps:         "Filename\tType\tSize\tUsed\tPriority\n/swap.img file 2097148 0 -2\n",
			evidence.FileLinuxCmdlines:      " 1034 /usr/local/bin/kubelet --config=/var/lib/kubelet/kubelet-config.yaml --fail-swap-on=false\n",
			evidence.FileLinuxKubeletConfig: "kind: KubeletConfiguration\nmemorySwap:\n  swapBehavior: LimitedSwap\n"},
			probes.Pass, "swapBehavior LimitedSwap"},
		{"route via the wrong hop", "LINUX-ROUTES", map[string]string{
			evidence.FileLinuxRoutes: `[{"dst":"default","gateway":"10.240.0.1","dev":"ens4","flags":[]},{"dst":"10.200.2.0/24","gateway":"10.240.0.31","dev":"ens4","flags":[]}]` + "\n"},
			probes.Fail, "goes via 10.240.0.31, expected via 10.240.0.30"},
		{"blackhole route", "LINUX-ROUTES", map[string]string{
			evidence.FileLinuxRoutes: `[{"type":"blackhole","dst":"10.200.2.0/24","flags":[]}]` + "\n"},
			probes.Fail, "is blackhole"},
		{"a covering route", "LINUX-ROUTES", map[string]string{
			evidence.FileLinuxRoutes: `[{"dst":"10.200.2.0/23","gateway":"10.240.0.30","dev":"ens4","flags":[]}]` + "\n"},
			probes.Pass, "all 1 Windows"},
		{"bridge netfilter off", "LINUX-IPFORWARD", map[string]string{
			evidence.FileLinuxSysctl: "net.ipv4.ip_forward = 1\n"},
			probes.Warn, "br_netfilter"},
		{"--cluster-cidr flag wins", "LINUX-KPROXY-CIDR", map[string]string{
			evidence.FileLinuxCmdlines: " 1037 /usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/kube-proxy-config.yaml --cluster-cidr=10.100.0.0/16\n"},
			probes.Fail, "clusterCIDR 10.100.0.0/16"},
		{"--cluster-dns flag wins", "LINUX-KUBELET-DNS", map[string]string{
			evidence.FileLinuxCmdlines: " 1034 /usr/local/bin/kubelet --config=/var/lib/kubelet/kubelet-config.yaml --cluster-dns=10.32.0.53\n"},
			probes.Fail, "clusterDNS 10.32.0.53"},
		{"disabled but running", "LINUX-SERVICES", map[string]string{
			evidence.FileLinuxSystemd: "Id=containerd.service\nActiveState=active\nSubState=running\nUnitFileState=disabled\n\nId=kubelet.service\nActiveState=active\nSubState=running\nUnitFileState=enabled\n"},
			probes.Warn, "containerd: disabled"},
		{"no CNI config", "LINUX-CNI-SUBNET", map[string]string{
			evidence.FileLinuxCNI: "==> /etc/cni/net.d/README <==\nnothing\n"},
			probes.Fail, "no CNI network config"},
		{"VXLAN without room for its header", "LINUX-VXLAN", map[string]string{
			evidence.FileLinuxLinks: `[{"ifname":"ens4","mtu":1460},{"ifname":"flannel.4096","mtu":1450,"linkinfo":{"info_kind":"vxlan","info_data":{"id":4096,"port":4789,"dev":"ens4"}}}]` + "\n"},
			probes.Fail, "at most 1410"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scenarioMap(t, "mixed-hardway-healthy")
			for name, text := range tc.edit {
				m[file(name)] = &fstest.MapFile{Data: []byte(text)}
			}
			f := judgeLinux(t, m, tc.probe, node)
			text := f.Summary + "\n" + strings.Join(f.Details, "\n")
			if f.Status != tc.want || !strings.Contains(text, tc.has) {
				t.Errorf("%s: %s %q, want %s containing %q", tc.probe, f.Status, text, tc.want, tc.has)
			}
		})
	}
}

// TestLinuxRootCauseLinks: the Linux worker's missing route is the root cause of win-1's
// broken way back, and swap the root cause of the kubelet not running.
func TestLinuxRootCauseLinks(t *testing.T) {
	rules := probes.CauseRules()
	linked := func(cause, effect probes.Finding) bool {
		return slices.ContainsFunc(rules, func(r probes.CauseRule) bool { return r.Matches(cause, effect) })
	}
	m := scenarioMap(t, "mixed-hardway-route-missing")
	cause, effect := judgeLinux(t, m, "LINUX-ROUTES", "node-1"), judgeLinux(t, m, "NET-ROUTES", "win-1")
	if !linked(cause, effect) {
		t.Errorf("LINUX-ROUTES on node-1 does not explain NET-ROUTES on win-1:\n%+v\n%+v", cause, effect)
	}
	other := effect
	other.Details = []string{"node-0 has no route back to this node's pods"}
	if linked(cause, other) {
		t.Error("node-1's missing route explains a NET-ROUTES finding about node-0")
	}
	s := scenarioMap(t, "mixed-hardway-swap-on")
	if c, e := judgeLinux(t, s, "LINUX-SWAP", "node-0"), judgeLinux(t, s, "LINUX-SERVICES", "node-0"); !linked(c, e) {
		t.Errorf("LINUX-SWAP does not explain %q", e.Summary)
	}
}

// TestLinuxRoutesOffHost: a worker with no host route to any peer leaves pod routing to
// the network (kubernetes-the-hard-way on GCP: VPC routes), so a missing route to the
// Windows pods is a warning to check there, not a host route to add; Calico skips.
func TestLinuxRoutesOffHost(t *testing.T) {
	m := scenarioMap(t, "mixed-hardway-healthy")
	m["nodes/node-1/linux-ip-route.json"] = &fstest.MapFile{Data: []byte(
		`[{"dst":"default","gateway":"10.240.0.1","dev":"ens4","protocol":"dhcp","flags":[]},{"dst":"10.200.1.0/24","dev":"cnio0","protocol":"kernel","scope":"link","flags":[]}]` + "\n")}
	if f := judgeLinux(t, m, "LINUX-ROUTES", "node-1"); f.Status != probes.Warn || f.Fix != nil {
		t.Errorf("off-host routing: %s %q fix %v", f.Status, f.Summary, f.Fix)
	}
	m["nodes/node-1/linux-cni.txt"] = &fstest.MapFile{Data: []byte("==> /etc/cni/net.d/10-calico.conflist <==\n" +
		`{"name":"k8s-pod-network","cniVersion":"0.3.1","plugins":[{"type":"calico","ipam":{"type":"calico-ipam"}}]}` + "\n")}
	if f := judgeLinux(t, m, "LINUX-ROUTES", "node-1"); f.Status != probes.Skip {
		t.Errorf("calico: %s %q", f.Status, f.Summary)
	}
}
