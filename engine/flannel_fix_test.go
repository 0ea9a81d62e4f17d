package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestResetSourceVIPEndToEnd: on flannel-source-vip-stale FLANNEL-STATE previews removing
// exactly the stale C:\k files and re-reserving a source VIP in the pod subnet through
// kube-proxy's service; the fix runs over WinRM on the fake node with its parameters as
// data, and FLANNEL-STATE then passes (and SVC-LB-POLICY, which it caused).
func TestResetSourceVIPEndToEnd(t *testing.T) {
	b := newFixBench(t, "flannel-source-vip-stale")
	f := b.finding(t, "FLANNEL-STATE")
	if f.Status != probes.Fail || !strings.Contains(f.Summary, "10.244.7.2") {
		t.Fatalf("before: %s %q", f.Status, f.Summary)
	}
	fix := pick(f, "reset-source-vip")
	if fix == nil || fix.Action != "fix-reset-source-vip" || fix.Disruptive {
		t.Fatalf("fix %+v", f.Fix)
	}
	paths, _ := fix.Params["Path"].([]string)
	if strings.Join(paths, ",") != `C:\k\sourceVip.json,C:\k\sourceVipRequest.json` || fix.Params["Service"] != "kube-proxy" ||
		fix.Params["Subnet"] != "10.244.2.0/24" || fix.Params["Network"] != "vxlan0" || fix.Params["CniBin"] != `C:\opt\cni\bin` {
		t.Fatalf("params %v", fix.Params)
	}
	if fix.Commands[0] != `Remove-Item -LiteralPath 'C:\k\sourceVip.json', 'C:\k\sourceVipRequest.json'` {
		t.Errorf("preview %q", fix.Commands)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil {
		t.Fatalf("apply: %v (output %q)", err, out.Output)
	}
	if out.Result != engine.Verified || out.After.Status != probes.Pass {
		t.Fatalf("not verified: %s %s", out.After.Status, out.After.Summary)
	}
	if calls := b.fixCalls(); len(calls) != 1 || calls[0] != "fix-reset-source-vip" {
		t.Fatalf("the node ran %v", calls)
	}
	rec := b.fake.Commands()
	var sent map[string]any
	for _, r := range rec {
		for i, c := range r.Calls {
			if c == "fix-reset-source-vip" {
				sent = r.Params[i]
			}
		}
	}
	if sent["Subnet"] != "10.244.2.0/24" || sent["Service"] != "kube-proxy" {
		t.Errorf("the node received %v", sent)
	}
	if lb := b.finding(t, "SVC-LB-POLICY"); lb.Status != probes.Pass {
		t.Errorf("SVC-LB-POLICY after the fix: %s %s", lb.Status, lb.Summary)
	}
}

// TestStartFlanneldEndToEnd: on flanneld-stopped FLANNEL-STATE offers starting the
// flanneld service; it runs over WinRM and FLANNEL-STATE passes after it.
func TestStartFlanneldEndToEnd(t *testing.T) {
	b := newFixBench(t, "flanneld-stopped")
	f := b.finding(t, "FLANNEL-STATE")
	fix := pick(f, "start-service")
	if f.Status != probes.Fail || fix == nil || strings.Join(fix.Params["Name"].([]string), ",") != "flanneld" {
		t.Fatalf("before: %s %q fix %+v", f.Status, f.Summary, f.Fix)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified || out.After.Status != probes.Pass {
		t.Fatalf("apply: %v, %s %s %q", err, out.Result, out.After.Status, out.After.Summary)
	}
	if calls := b.fixCalls(); len(calls) != 1 || calls[0] != "fix-start-service" {
		t.Fatalf("the node ran %v", calls)
	}
}

// TestResetSourceVIPHostProcess: with a HostProcess kube-proxy the fix removes the files in
// C:\sourcevip and stops kube-proxy (no service to edit: its pod's start.ps1 reserves
// the new address), and FLANNEL-STATE passes after it.
func TestResetSourceVIPHostProcess(t *testing.T) {
	b := newFixBench(t, "layout-kubeadm-source-vip-stale")
	f := b.finding(t, "FLANNEL-STATE")
	fix := pick(f, "reset-source-vip")
	if f.Status != probes.Fail || fix == nil || fix.Params["Service"] != "" ||
		strings.Join(fix.Params["Path"].([]string), ",") != `C:\sourcevip\sourceVip.json,C:\sourcevip\sourceVipRequest.json` {
		t.Fatalf("before: %s %q fix %+v", f.Status, f.Summary, f.Fix)
	}
	out, err := b.fixer.Apply(context.Background(), f, fix, engine.Typed("y"))
	if err != nil || out.Result != engine.Verified || out.After.Status != probes.Pass {
		t.Fatalf("apply: %v, %s %s %q", err, out.Result, out.After.Status, out.After.Summary)
	}
}
