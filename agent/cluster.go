package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// NodeAndPods puts the agent's own Node (cluster/nodes.json, a list of one) and the pods
// the API has on it (cluster/pods.json, a LIST by field selector) into the tree before a
// sweep: two requests. Node probes read them to tell the layout (an rke2 node by its
// Node object, kube-proxy as a DaemonSet pod rather than a service). Nothing else of the
// cluster is read, and judge leaves out the probes that would need more (Services, the
// other Nodes): the agent judges its node, the CLI the cluster.
func NodeAndPods(cs kubernetes.Interface, node string) func(context.Context, *evidence.Tree) error {
	return func(ctx context.Context, tree *evidence.Tree) error {
		n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading node %s: %w", node, err)
		}
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
		if err != nil {
			return fmt.Errorf("listing the pods on node %s: %w", node, err)
		}
		nb, err := kube.KubectlList("v1", "NodeList", []corev1.Node{*n})
		if err != nil {
			return err
		}
		pb, err := kube.KubectlList("v1", "PodList", pods.Items)
		if err != nil {
			return err
		}
		tree.Put(evidence.PathNodes, nb)
		tree.Put(evidence.PathPods, pb)
		return nil
	}
}
