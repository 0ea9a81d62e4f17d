package probes_test

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// flannelTree copies a scenario's tree so a test can change its files.
func flannelTree(t *testing.T, name string) (fstest.MapFS, string) {
	t.Helper()
	fsys, meta, _, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m, meta.Nodes[0]
}

func runProbe(t *testing.T, id, node string, m fstest.MapFS) probes.Finding {
	t.Helper()
	p, ok := probes.Default().Get(id)
	if !ok {
		t.Fatalf("no probe %s", id)
	}
	return probes.RunProbe(p, node, evidence.Evidence{FS: m})[0]
}

// TestFlannelStatePaths: each check of FLANNEL-STATE from the healthy Anthos-like node's
// evidence with one file changed; old evidence without flannel.json skips, and a
// non-flannel node skips whatever it holds.
func TestFlannelStatePaths(t *testing.T) {
	env := func(network, subnet string) string {
		return `{"Files": [{"Path": "C:\\run\\flannel\\subnet.env", "Content": "FLANNEL_NETWORK=` + network +
			`\nFLANNEL_SUBNET=` + subnet + `\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n"}]}`
	}
	for _, tc := range []struct {
		name, file, content string
		status              probes.Status
		want                string
	}{
		{"healthy", "", "", probes.Pass, "FLANNEL_SUBNET=10.244.2.1/24 is in podCIDR 10.244.2.0/24"},
		{"no subnet.env", "flannel.json", `{"Files": []}`, probes.Fail, `no C:\run\flannel\subnet.env`},
		{"stale subnet", "flannel.json", env("10.244.0.0/16", "10.244.7.1/24"), probes.Fail, "FLANNEL_SUBNET=10.244.7.1/24 is not the node's podCIDR 10.244.2.0/24"},
		{"other network", "flannel.json", env("10.200.0.0/16", "10.244.2.1/24"), probes.Fail, "FLANNEL_NETWORK=10.200.0.0/16 is not the cluster CIDR 10.244.0.0/16"},
		{"not KEY=VALUE", "flannel.json", `{"Files": [{"Path": "C:\\run\\flannel\\subnet.env", "Content": "garbage"}]}`, probes.Fail, "cannot be read"},
		{"empty answer", "flannel.json", `{"Files": [{"Path": "C:\\run\\flannel\\subnet.env", "Content": "FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.2.1/24\n"},` +
			`{"Path": "C:\\k\\sourceVip.json", "Content": ""}]}`, probes.Fail, `C:\k\sourceVip.json holds no source VIP: the file is empty`},
		{"not collected", "flannel.json", "", probes.Skip, "no nodes/winpool-7k2pq/flannel.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, node := flannelTree(t, "healthy-containerd-overlay")
			if tc.file != "" {
				p := "nodes/" + node + "/" + tc.file
				if tc.content == "" {
					delete(m, p)
				} else {
					m[p] = &fstest.MapFile{Data: []byte(tc.content)}
				}
			}
			f := runProbe(t, "FLANNEL-STATE", node, m)
			if f.Status != tc.status || !strings.Contains(f.Summary+"\n"+strings.Join(f.Details, "\n"), tc.want) {
				t.Fatalf("%s %q %v, want %s %q", f.Status, f.Summary, f.Details, tc.status, tc.want)
			}
			if tc.status == probes.Fail && tc.name == "no subnet.env" && f.Fix != nil {
				t.Errorf("flanneld runs: nothing to restart, got fix %+v", f.Fix)
			}
		})
	}
	t.Run("not flannel", func(t *testing.T) {
		m, node := flannelTree(t, "healthy-sdn-l2bridge-docker")
		m["nodes/"+node+"/flannel.json"] = &fstest.MapFile{Data: []byte(env("10.244.0.0/16", "10.244.7.1/24"))}
		if f := runProbe(t, "FLANNEL-STATE", node, m); f.Status != probes.Skip || !strings.Contains(f.Summary, "not a flannel node") {
			t.Fatalf("%s %q", f.Status, f.Summary)
		}
	})
	t.Run("HostProcess pod down", func(t *testing.T) {
		m, node := flannelTree(t, "layout-kubeadm-flannel-hostprocess")
		procs := "nodes/" + node + "/processes.json"
		var ps []map[string]any
		if err := json.Unmarshal(m[procs].Data, &ps); err != nil {
			t.Fatal(err)
		}
		ps = slices.DeleteFunc(ps, func(p map[string]any) bool { return p["Name"] == "flanneld.exe" })
		m[procs].Data, _ = json.Marshal(ps)
		var pods corev1.PodList
		if err := json.Unmarshal(m["cluster/pods.json"].Data, &pods); err != nil {
			t.Fatal(err)
		}
		for i := range pods.Items {
			for j, cs := range pods.Items[i].Status.ContainerStatuses {
				if cs.Name == "kube-flannel" {
					pods.Items[i].Status.ContainerStatuses[j] = corev1.ContainerStatus{Name: cs.Name, RestartCount: 9,
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}}}
				}
			}
		}
		m["cluster/pods.json"].Data, _ = json.Marshal(pods)
		f := runProbe(t, "FLANNEL-STATE", node, m)
		if f.Status != probes.Fail || !strings.Contains(f.Summary, "waiting: CrashLoopBackOff") || !strings.Contains(f.Summary, "9 restarts") || f.Fix == nil || f.Fix.ID != "restart-component-pod" {
			t.Fatalf("%s %q fix %+v", f.Status, f.Summary, f.Fix)
		}
	})
}

// TestFlanneldStoppedFix: flanneld-stopped offers fix-start-service for the flanneld
// service, and HNS-NETWORK is not blamed (the network is still there).
func TestFlanneldStoppedFix(t *testing.T) {
	m, node := flannelTree(t, "flanneld-stopped")
	f := runProbe(t, "FLANNEL-STATE", node, m)
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != "fix-start-service" || !strings.Contains(f.Summary, "service flanneld is Stopped") {
		t.Fatalf("%s %q fix %+v", f.Status, f.Summary, f.Fix)
	}
}

// TestFlannelCauseRules: FLANNEL-STATE explains HNS-NETWORK only when both say flanneld
// is not running, and SVC-LB-POLICY only when both are about the source VIP.
func TestFlannelCauseRules(t *testing.T) {
	fs := func(probe, summary string, details ...string) probes.Finding {
		return probes.Finding{Probe: probe, Node: "n", Status: probes.Fail, Summary: summary, Details: details}
	}
	down := fs("FLANNEL-STATE", "flanneld is not running: service flanneld is Stopped")
	stale := fs("FLANNEL-STATE", `C:\k\sourceVip.json reserves the source VIP 10.244.7.2, outside the node's pod subnet`)
	waiting := fs("HNS-NETWORK", "HNS network vxlan0 does not exist", "cause: flanneld is not running; with flannel it creates the network")
	unknown := fs("HNS-NETWORK", "HNS network vxlan0 does not exist", "cause unknown from this evidence: read the kubelet and flanneld logs")
	lb := fs("SVC-LB-POLICY", "the load balancers' source VIP 10.244.7.2 has no local endpoint")
	linked := func(cause, effect probes.Finding) bool {
		for _, r := range probes.CauseRules() {
			if r.Matches(cause, effect) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		cause, effect probes.Finding
		want          bool
	}{{down, waiting, true}, {down, unknown, false}, {stale, waiting, false}, {stale, lb, true}, {down, lb, false}} {
		if got := linked(tc.cause, tc.effect); got != tc.want {
			t.Errorf("%q explains %q: %v, want %v", tc.cause.Summary, tc.effect.Summary+" "+strings.Join(tc.effect.Details, " "), got, tc.want)
		}
	}
}
