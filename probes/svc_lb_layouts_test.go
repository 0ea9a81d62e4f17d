package probes_test

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestSVCLBPolicyOnHealthyLayouts (issue 25, class 2): on the healthy scenario of every
// layout whose node runs kube-proxy, SVC-LB-POLICY judges the load balancers the winkernel
// proxier programs there and passes; before, every layout scenario skipped it.
func TestSVCLBPolicyOnHealthyLayouts(t *testing.T) {
	p, _ := probes.Default().Get("SVC-LB-POLICY")
	judged := 0
	for _, name := range scenarios.Names() {
		tree, meta, want, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Layout == "" || !scenarios.Healthy(meta, want) {
			continue
		}
		for _, node := range meta.Nodes {
			b, err := evidence.Evidence{FS: tree}.Read(evidence.NodeFile(node, evidence.FileProcesses))
			if err != nil || !strings.Contains(strings.ToLower(string(b)), "kube-proxy.exe") {
				continue // no kube-proxy (Antrea): AntreaProxy serves Services
			}
			judged++
			if f := probes.RunProbe(p, node, evidence.Evidence{FS: tree})[0]; f.Status != probes.Pass {
				t.Errorf("%s/%s: SVC-LB-POLICY %s: %s", name, node, f.Status, f.Summary)
			}
		}
	}
	if judged < 8 {
		t.Errorf("only %d healthy layout nodes run kube-proxy", judged)
	}
}

// TestSourceVIPNodeIP: the kubernetes Service's load balancer on overlay carries the node
// IP as source VIP (its backend, the API server, is outside every remote subnet); that is
// no "source VIP without a local endpoint".
func TestSourceVIPNodeIP(t *testing.T) {
	f := judge(t, "SVC-LB-POLICY", "winpool-7k2pq", mustLoad(t, "endpointslices-healthy"))
	if f.Status != probes.Pass || !strings.Contains(strings.Join(f.Details, "\n"), "node's own address") {
		t.Errorf("node IP as source VIP: %s %q %q", f.Status, f.Summary, f.Details)
	}
}

// TestNoLoadBalancersUnderKernelspace: an empty policy list while kernelspace kube-proxy
// runs and Services have ready endpoints fails; it skipped before.
func TestNoLoadBalancersUnderKernelspace(t *testing.T) {
	src := mustLoad(t, "layout-calico-vxlan")
	tree := fstest.MapFS{}
	if err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		tree[p] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tree["nodes/win-calico-01/hns-policylists.json"] = &fstest.MapFile{Data: []byte("[]\r\n")}
	f := judge(t, "SVC-LB-POLICY", "win-calico-01", tree)
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "programmed no HNS load balancer") {
		t.Errorf("empty policy list under kernelspace: %s %q", f.Status, f.Summary)
	}
}
