package main

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport/hostprocess"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestTransportAutoLinuxPod: with --transport auto --linux-nodes and no node credentials,
// the Windows node is reached through a HostProcess pod and the Linux worker through a
// privileged pod; the report says which, and no pod is left.
func TestTransportAutoLinuxPod(t *testing.T) {
	cl, cs, tlsCfg := kubeletCluster(t)
	fsys, _, _, err := scenarios.Load("mixed-hardway-healthy")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ name, os string }{{"win-1", ""}, {"node-0", "linux"}} {
		opts := fakenode.KubeletOptions{Name: n.name, Client: cs, TLS: tlsCfg, OS: n.os,
			Responder: fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: n.name})}
		if n.os == "linux" {
			opts.Responder = fakenode.NewLinuxNode(fakenode.NodeOptions{Scenario: fsys, Node: n.name})
		}
		k, err := fakenode.StartKubelet(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
	}
	t.Setenv("WTS_PASSWORD", "")
	code, out, errOut := run(t, "--report", "-o", "json", "--kubeconfig", cl.Kubeconfig, "--transport", "auto", "--linux-nodes")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Reached  string
		Findings []struct{ Probe, Node, Status string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("reached: %s", rep.Reached)
	if !strings.Contains(rep.Reached, "node-0 over hostprocess (privileged pod; ssh: not tried") ||
		!strings.Contains(rep.Reached, "win-1 over hostprocess (winrm-https, ssh: not tried") {
		t.Errorf("reached = %q, want node-0 over a privileged pod and win-1 over hostprocess", rep.Reached)
	}
	judged := map[string]bool{}
	for _, f := range rep.Findings {
		judged[f.Node] = true
		if f.Probe == "REACH" && f.Status != "pass" {
			t.Errorf("node %s not reached: %+v", f.Node, f)
		}
	}
	if !judged["win-1"] || !judged["node-0"] {
		t.Errorf("findings name %v: want both nodes judged", judged)
	}
	left, err := cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{LabelSelector: hostprocess.ManagedByLabel + "=" + hostprocess.ManagedByValue})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("pods left: %d (%v)", len(left.Items), err)
	}
}
