package probes

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// nodeReady (NODE-READY): the node's Ready condition is True, and none of the
// conditions Node Problem Detector sets on Windows nodes (Anthos) reports a broken
// component. It reads only cluster evidence, so it judges even a node that cannot be
// reached.
type nodeReady struct{}

func (nodeReady) Spec() Spec {
	return Spec{ID: "NODE-READY", Layouts: allLayouts(), Title: "node is Ready", FM: []string{"FM-08"},
		Reads: []evidence.Ref{evidence.ClusterNodes}}
}

func (nodeReady) Check(c C) Finding {
	node := c.node
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	var problems, details []string
	ready, hasReady := condition(self, corev1.NodeReady)
	switch {
	case !hasReady:
		problems = append(problems, "no Ready condition")
		details = append(details, "the kubelet never reported status for this node (registered by hand, or the kubelet never started)")
	case ready.Status != corev1.ConditionTrue:
		problems = append(problems, fmt.Sprintf("Ready=%s (%s)", ready.Status, orNone(ready.Reason)))
		details = append(details, "expected: Ready=True", "actual: "+describeCondition(ready))
		if hint := readyHint(ready); hint != "" {
			details = append(details, hint)
		}
	}
	// Node Problem Detector's Windows health conditions: any True makes the node
	// NotReady, and NPD restarts the component.
	for _, t := range []corev1.NodeConditionType{"KubeletUnhealthy", "KubeProxyUnhealthy", "ContainerRuntimeUnhealthy"} {
		if cond, ok := condition(self, t); ok && cond.Status == corev1.ConditionTrue {
			problems = append(problems, fmt.Sprintf("%s=True", t))
			details = append(details, fmt.Sprintf("expected: %s=False", t), "actual: "+describeCondition(cond),
				"Node Problem Detector saw the component fail its health check and restarts it; see its logs in C:\\var\\log\\node-problem-detector")
		}
	}
	if unknown := decode.UnknownFields(self); unknown != nil {
		// A pasted table: its STATUS column is the Ready condition, nothing more.
		if !hasReady {
			return c.Skip("the pasted node table shows no Ready status for this node", evidence.PathNodes).
				With("re-collect with: kubectl get node " + node + " -o json")
		}
		if len(problems) == 0 {
			// Ready=True is half the verdict: Node Problem Detector's conditions are not shown.
			return c.Skip("Ready=True as the pasted node table shows; its other conditions were not shown", evidence.PathNodes).
				With("re-collect the conditions with: kubectl describe node " + node)
		}
	}
	if len(problems) == 0 {
		return c.Pass(fmt.Sprintf("Ready since %s", ready.LastTransitionTime.UTC().Format("2006-01-02 15:04:05Z")), evidence.PathNodes)
	}
	f := c.Fail("node not healthy: "+strings.Join(problems, ", "), evidence.PathNodes).With(details...)
	f.Fix = readyFix(c.id, node, hasReady && ready.Status == corev1.ConditionUnknown)
	return f
}

func condition(n corev1.Node, t corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return corev1.NodeCondition{}, false
}

func describeCondition(c corev1.NodeCondition) string {
	s := fmt.Sprintf("%s=%s, reason %s", c.Type, c.Status, orNone(c.Reason))
	if c.Message != "" {
		s += fmt.Sprintf(", message %q", c.Message)
	}
	if !c.LastTransitionTime.IsZero() {
		s += ", since " + c.LastTransitionTime.UTC().Format("2006-01-02 15:04:05Z")
	}
	if !c.LastHeartbeatTime.IsZero() {
		s += ", last heartbeat " + c.LastHeartbeatTime.UTC().Format("2006-01-02 15:04:05Z")
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// readyHint maps the kubelet's NotReady messages to the probe that finds the cause.
func readyHint(c corev1.NodeCondition) string {
	m := strings.ToLower(c.Reason + " " + c.Message)
	switch {
	case strings.Contains(m, "stopped posting node status"), c.Status == corev1.ConditionUnknown:
		return "the kubelet stopped reporting: it is not running, or the node is down or unreachable (after a reboot the SDN scripts start nothing: see SVC-REBOOT and SVC-KUBELET)"
	case strings.Contains(m, "network plugin") || strings.Contains(m, "cni"):
		return "the network is not ready: the CNI config or the HNS network is missing (see HNS-NETWORK and NODE-PODCIDR)"
	case strings.Contains(m, "runtime") || strings.Contains(m, "pleg"):
		return "the container runtime is not answering the kubelet (see the runtime service probe)"
	}
	return ""
}

func readyFix(verify, node string, unknown bool) *Fix {
	restart := &Fix{ID: "restart-node-components", Title: "Start the node's components and check why they stopped", Kind: Manual, Verify: verify,
		Commands: []string{
			"Get-Service containerd, docker, kubelet, kube-proxy -ErrorAction SilentlyContinue | ft Name, Status, StartType",
			"Start-Service containerd; Start-Service kubelet; Start-Service kube-proxy",
			"Get-Content C:\\var\\log\\kubelet\\*.log -Tail 50   # or C:\\k\\kubelet.log with the SDN scripts",
		},
		Notes: []string{"the node probes (SVC-*, HNS-*) name the component at fault when the node is reachable"}}
	if !unknown {
		return restart
	}
	del := &Fix{ID: "delete-node", Title: "Delete the node object so the node pool recreates it", Kind: KubeAPI, Action: DeleteNode,
		Commands:   []string{"kubectl delete node " + node},
		Disruptive: true, Impact: "the Node object and the pods bound to it are deleted; only a managed node pool (Anthos, cluster-api) recreates the VM, elsewhere the kubelet must re-register",
		Verify: verify, Precheck: "the node is still NotReady",
		Notes: []string{"Anthos clusters on VMware document this for nodes NotReady after a VM reboot: the startup script runs only on first boot",
			"the node is judged again once it has re-registered; until then it is missing from the node list"}}
	return &Fix{ID: "node-not-ready", Title: "Bring the node back (choose one)", Kind: Manual, Verify: verify,
		Commands: restart.Commands, Choices: []*Fix{restart, del}}
}
