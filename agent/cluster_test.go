package agent_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/kubeapi"
)

// TestNodeAndPodsReadsOnlyItsNode: the agent's cluster evidence, read from the real API
// server, is its own Node and the pods on it, decoded as the probes decode kubectl's lists.
func TestNodeAndPodsReadsOnlyItsNode(t *testing.T) {
	c := kubeapi.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Config)
	ctx := context.Background()
	setupCluster(t, cs, "win-a", "win-b")
	for _, p := range []struct{ name, node string }{{"on-a", "win-a"}, {"on-b", "win-b"}, {"also-on-a", "win-a"}} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: p.node, Containers: []corev1.Container{{Name: "c", Image: "pause"}}}}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tree := evidence.NewTree()
	if err := agent.NodeAndPods(cs, "win-a")(ctx, tree); err != nil {
		t.Fatal(err)
	}
	ev := tree.Evidence()
	nodes, err := evidence.ClusterNodes.Decode(evidence.PathNodes, mustRead(t, ev, evidence.PathNodes))
	if err != nil || len(nodes) != 1 || nodes[0].Name != "win-a" {
		t.Errorf("nodes.json: %v %v, want win-a alone", names(nodes), err)
	}
	pods, err := evidence.Pods.Decode(evidence.PathPods, mustRead(t, ev, evidence.PathPods))
	if err != nil || len(pods) != 2 {
		t.Errorf("pods.json: %d pods %v, want the 2 on win-a", len(pods), err)
	}
	for _, p := range pods {
		if p.Spec.NodeName != "win-a" {
			t.Errorf("pod %s of node %s", p.Name, p.Spec.NodeName)
		}
	}
}

func mustRead(t *testing.T, ev evidence.Evidence, p string) []byte {
	t.Helper()
	b, err := ev.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func names(ns []corev1.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}
