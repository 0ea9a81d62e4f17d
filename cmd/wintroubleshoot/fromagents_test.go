package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// TestAgentOnceThenReportFromAgents is watch mode from the command line, against the
// real API server: `agent --once` on a node whose kubelet is stopped (its evidence
// folder standing for the node) publishes its condition and report, and
// `--report --from-agents` then shows that node's failure and an error for the Windows
// node that has no agent.
func TestAgentOnceThenReportFromAgents(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agent.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"winpool-7k2pq", "win-no-agent"} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"kubernetes.io/os": "windows"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := scenarioDir(t, "kubelet-service-stopped")
	code, out, errOut := run(t, "agent", "--once", "--from", dir, "--node", "winpool-7k2pq", "--kubeconfig", c.Kubeconfig)
	if code != 1 || !strings.Contains(out, "SVC-KUBELET") {
		t.Fatalf("agent --once: exit %d, want 1 with SVC-KUBELET\n%s\n%s", code, out, errOut)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, "winpool-7k2pq", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var set bool
	for _, cond := range node.Status.Conditions {
		set = set || cond.Type == agent.ServiceProblem && cond.Status == corev1.ConditionTrue && cond.Reason == "SVC-KUBELET"
	}
	if !set {
		t.Errorf("the node's conditions after agent --once: %+v", node.Status.Conditions)
	}

	code, out, errOut = run(t, "--report", "--from-agents", "--kubeconfig", c.Kubeconfig, "-o", "json")
	if code != 1 {
		t.Fatalf("--report --from-agents: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Findings []struct{ Probe, Node, Status, Summary string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.Node+" "+f.Probe] = f.Status
	}
	want := map[string]string{"winpool-7k2pq AGENT": "pass", "winpool-7k2pq SVC-KUBELET": "fail", "win-no-agent AGENT": "error"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if code, _, errOut := run(t, "--from-agents", "--kubeconfig", c.Kubeconfig); code != 2 || !strings.Contains(errOut, "--report") {
		t.Errorf("--from-agents without --report: exit %d, %s", code, errOut)
	}
}
