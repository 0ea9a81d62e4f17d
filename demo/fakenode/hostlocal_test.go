package fakenode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// TestResetSourceVIPReleasesFirst: kube-proxy's source VIP is reserved again in the same
// subnet only because the fix releases host-local's last reservation (CNI_COMMAND=DEL)
// before its ADD; without the release host-local refuses the duplicate, as its allocator
// does, and in a new subnet the old reservation is out of range and does not matter.
func TestResetSourceVIPReleasesFirst(t *testing.T) {
	flannel, err := json.Marshal(map[string]any{"Files": []map[string]string{
		{"Path": `C:\k\sourceVipRequest.json`, "Content": `{"cniVersion": "0.2.0", "name": "vxlan0", "ipam":{"type":"host-local","ranges":[[{"subnet":"10.244.2.0/24"}]],"dataDir":"/var/lib/cni/networks"}}`},
		{"Path": `C:\k\sourceVip.json`, "Content": `{"cniVersion": "0.2.0", "ip4": {"ip": "10.244.2.2/24", "gateway": "10.244.2.1"}, "dns": {}}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	scenario := fstest.MapFS{
		"nodes/win-1/flannel.json":                            {Data: flannel},
		"after/fix-reset-source-vip/nodes/win-1/flannel.json": {Data: []byte(`{"Files":[]}`)},
		"after/fix-reset-source-vip/output.txt":               {Data: []byte("kube-proxy now uses --source-vip=10.244.2.3 (kubeproxy AppParameters)\r\n")},
	}
	body, err := scripts.Body("fix-reset-source-vip")
	if err != nil {
		t.Fatal(err)
	}
	i, j := strings.Index(body, "    $env:CNI_COMMAND = 'DEL'"), strings.Index(body, "    $env:CNI_COMMAND = 'ADD'")
	if i < 0 || j < i {
		t.Fatalf("the fix no longer releases before it reserves:\n%s", body)
	}
	run := func(subnet string, withoutRelease bool) scripts.Result {
		params := map[string]any{"Path": []string{`C:\k\sourceVip.json`}, "Service": "kubeproxy", "Network": "vxlan0",
			"Subnet": subnet, "CniBin": `C:\k\cni`}
		script, err := scripts.Sweep([]scripts.Call{{Name: "fix-reset-source-vip", Params: params}})
		if err != nil {
			t.Fatal(err)
		}
		if withoutRelease {
			script = strings.Replace(script, body[i:j], "", 1)
		}
		n := NewNode(NodeOptions{Scenario: scenario, Node: "win-1"})
		res, _, err := scripts.Split(n.Respond(context.Background(), scripts.CommandLine(), []byte(script)).Stdout)
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %+v", err, res)
		}
		return res[0]
	}
	if r := run("10.244.2.0/24", false); r.Failed() {
		t.Errorf("the fix as shipped, same subnet: %s", r.Stderr)
	}
	if r := run("10.244.2.0/24", true); !r.Failed() || !strings.Contains(string(r.Stderr), "10.244.2.2 has been allocated to dummy, duplicate allocation is not allowed") {
		t.Errorf("no release, same subnet: exit %d, %s", r.Exit, r.Stderr)
	}
	if r := run("10.244.3.0/24", true); r.Failed() {
		t.Errorf("no release, new subnet (the old address is out of range): %s", r.Stderr)
	}
}
