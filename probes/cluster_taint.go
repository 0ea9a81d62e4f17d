package probes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
)

// NodeTaintProbe (NODE-TAINT): a Windows node carries an os=windows:NoSchedule-style taint
// so Linux pods stay off it, no Linux pods run on it anyway, and Windows pods are not left
// Pending for want of a toleration.
type NodeTaintProbe struct{}

func (NodeTaintProbe) ID() string    { return "NODE-TAINT" }
func (NodeTaintProbe) Title() string { return "Windows taint keeps Linux pods off" }
func (NodeTaintProbe) Needs() []string {
	return []string{collectors.ClusterNodes, collectors.ClusterPods, collectors.ClusterEvents}
}

// windowsTaint finds the node's Windows taint: key os or node.kubernetes.io/os, value
// windows in any case (k8s docs, GDC and AKS examples differ), effect NoSchedule/NoExecute.
func windowsTaint(n corev1.Node) (corev1.Taint, bool) {
	for _, t := range n.Spec.Taints {
		if (t.Key == "os" || t.Key == "node.kubernetes.io/os") && strings.EqualFold(t.Value, "windows") &&
			(t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

func (p NodeTaintProbe) Check(node string, ev collectors.Evidence) []Finding {
	c := check{p.ID(), node, ev}
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return []Finding{*bad}
	}
	if !decode.IsWindows(self) {
		return []Finding{c.finding(Skip, "not a Windows node")}
	}
	pods, err := readDecode(c.ev, collectors.ClusterPods, decode.Pods)
	if err != nil {
		f := c.problem(collectors.ClusterPods, err)
		return []Finding{f}
	}
	events, note := optionalCluster(c, collectors.ClusterEvents, decode.Events)
	evidence := []string{collectors.ClusterNodes, collectors.ClusterPods}

	var linux []string
	var details []string
	dsPatches := map[string]string{}
	for _, pod := range podsOn(pods, node) {
		if why := linuxPod(pod); why != "" {
			linux = append(linux, podID(pod))
			details = append(details, fmt.Sprintf("%s: %s", podID(pod), why))
			if ds := ownerDaemonSet(pod); ds != "" {
				dsPatches[pod.Namespace+"/"+ds] = fmt.Sprintf(`kubectl -n %s patch daemonset %s --type merge -p '{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}'`, pod.Namespace, ds)
			}
		}
	}
	taint, tainted := windowsTaint(self)
	if !tainted {
		var f Finding
		if len(linux) > 0 {
			f = c.finding(Fail, fmt.Sprintf("no Windows taint, and Linux pods landed here: %s", strings.Join(linux, ", ")), details...)
			f.Details = append(f.Details, "they fail with ImagePullBackOff or \"no matching manifest for windows/amd64\", and leak HNS endpoints")
		} else {
			f = c.finding(Warn, "no os=windows:NoSchedule taint: any Linux pod without an OS nodeSelector may be scheduled here")
		}
		f.Details = append(f.Details, "expected: a taint os=windows:NoSchedule (or node.kubernetes.io/os=windows:NoSchedule)",
			"actual: taints "+taintList(self.Spec.Taints))
		f.Fix = taintFix(p.ID(), node, taintKey(nodes), linux, dsPatches)
		f.Evidence = evidence
		return []Finding{f}
	}
	if len(linux) > 0 {
		// The taint is there, yet they run: they tolerate everything (operator Exists).
		f := c.finding(Fail, fmt.Sprintf("Linux pods run here despite the taint %s: %s", taint.ToString(), strings.Join(linux, ", ")), details...)
		f.Details = append(f.Details, "they tolerate every taint (tolerations: [{operator: Exists}] is common in system DaemonSets): give them a nodeSelector kubernetes.io/os: linux")
		f.Fix = &Fix{ID: "linux-nodeselector", Title: "Keep the Linux DaemonSets off Windows nodes", Kind: Manual, Verify: p.ID(),
			Commands: append(sortedValues(dsPatches), "kubectl delete pod -n <ns> <pod>   # pods not owned by a DaemonSet: fix their owner's nodeSelector")}
		f.Evidence = evidence
		return []Finding{f}
	}
	if stuck, why := pendingUntolerated(pods, events, taint); len(stuck) > 0 {
		f := c.finding(Fail, fmt.Sprintf("Windows pods Pending: they do not tolerate %s: %s", taint.ToString(), strings.Join(stuck, ", ")), why...)
		f.Details = append(f.Details, fmt.Sprintf("expected: a toleration {key: %s, operator: Equal, value: %s, effect: %s} and nodeSelector kubernetes.io/os: windows",
			taint.Key, taint.Value, taint.Effect))
		if note != "" {
			f.Details = append(f.Details, note)
		}
		f.Fix = &Fix{ID: "add-toleration", Title: "Add the Windows toleration to the Pending workloads", Kind: Manual, Verify: p.ID(),
			Commands: []string{fmt.Sprintf("tolerations: [{key: %q, operator: Equal, value: %q, effect: %s}]   # in each workload's pod template", taint.Key, taint.Value, taint.Effect)},
			Notes:    []string{"or a RuntimeClass whose scheduling.tolerations carries it, so every Windows workload gets it by naming the RuntimeClass"}}
		f.Evidence = append(evidence, collectors.ClusterEvents)
		return []Finding{f}
	}
	f := c.finding(Pass, fmt.Sprintf("tainted %s; no Linux pods here, no Windows pods stuck on the taint", taint.ToString()))
	if note != "" {
		f.Details = append(f.Details, note)
	}
	f.Evidence = evidence
	return []Finding{f}
}

// taintKey picks the taint key the cluster's other Windows nodes use, "os" by default.
func taintKey(nodes []corev1.Node) string {
	for _, n := range nodes {
		if t, ok := windowsTaint(n); ok {
			return t.Key
		}
	}
	return "os"
}

func taintFix(verify, node, key string, linux []string, dsPatches map[string]string) *Fix {
	f := &Fix{ID: "taint-windows", Title: fmt.Sprintf("Taint the node %s=windows:NoSchedule", key), Kind: KubeAPI, Action: Taint,
		Params:     map[string]any{"key": key, "value": "windows", "effect": "NoSchedule"},
		Commands:   []string{fmt.Sprintf("kubectl taint nodes %s %s=windows:NoSchedule", node, key)},
		Disruptive: true, Impact: "Windows pods without a matching toleration will no longer be scheduled here (running pods stay: NoSchedule evicts nothing)",
		Verify: verify, Precheck: "the node still has no Windows taint",
		Notes: []string{fmt.Sprintf("lasting: kubelet --register-with-taints=%s=windows:NoSchedule, or a re-registered node comes back untainted", key),
			"give Windows workloads the toleration and nodeSelector kubernetes.io/os: windows (or a RuntimeClass) first"},
	}
	if len(linux) > 0 {
		f.Notes = append(f.Notes, "then delete the Linux pods already here (NoSchedule does not evict): "+strings.Join(linux, ", "))
		f.Notes = append(f.Notes, sortedValues(dsPatches)...)
	}
	return f
}

func taintList(ts []corev1.Taint) string {
	if len(ts) == 0 {
		return "none"
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.ToString())
	}
	return strings.Join(out, ", ")
}

func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func ownerDaemonSet(p corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return o.Name
		}
	}
	return ""
}
