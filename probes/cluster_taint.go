package probes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// nodeTaint (NODE-TAINT): a Windows node carries an os=windows:NoSchedule-style taint
// so Linux pods stay off it, no Linux pods run on it anyway, and Windows pods are not left
// Pending for want of a toleration.
type nodeTaint struct{}

func (nodeTaint) Spec() Spec {
	return Spec{ID: "NODE-TAINT", Layouts: allLayouts(), Title: "Windows taint keeps Linux pods off", FM: []string{"FM-11"},
		Reads: []evidence.Ref{evidence.ClusterNodes, evidence.Pods, evidence.Events}}
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

func (nodeTaint) Check(c C) Finding {
	node := c.node
	nodes, self, bad := c.clusterNodes()
	if bad != nil {
		return *bad
	}
	if !decode.IsWindows(self) {
		return c.Skip("not a Windows node", evidence.PathNodes)
	}
	pods, _, bad := need(c, evidence.Pods)
	if bad != nil {
		return *bad
	}
	events, note := optionalNote(c, evidence.Events)
	cites := []string{evidence.PathNodes, evidence.PathPods}

	var linux []string
	var details []string
	dsPatches := map[string]string{}
	for _, pod := range podsBound(c.ev, pods, node) {
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
			f = c.Fail(fmt.Sprintf("no Windows taint, and Linux pods landed here: %s", strings.Join(linux, ", "))).With(details...)
			f = f.With("they fail with ImagePullBackOff or \"no matching manifest for windows/amd64\", and leak HNS endpoints")
		} else {
			f = c.Warn("no os=windows:NoSchedule taint: any Linux pod without an OS nodeSelector may be scheduled here")
		}
		f = f.With("expected: a taint os=windows:NoSchedule (or node.kubernetes.io/os=windows:NoSchedule)",
			"actual: taints "+taintList(self.Spec.Taints))
		f.Fix = taintFix(c.id, node, taintKey(nodes), linux, dsPatches)
		f = f.Citing(cites...)
		return f
	}
	if len(linux) > 0 {
		// The taint is there, yet they run: they tolerate everything (operator Exists).
		f := c.Fail(fmt.Sprintf("Linux pods run here despite the taint %s: %s", taint.ToString(), strings.Join(linux, ", ")), cites...).With(details...)
		f = f.With("they tolerate every taint (tolerations: [{operator: Exists}] is common in system DaemonSets): give them a nodeSelector kubernetes.io/os: linux")
		f.Fix = &Fix{ID: "linux-nodeselector", Title: "Keep the Linux DaemonSets off Windows nodes", Kind: Manual, Verify: c.id,
			Commands: append(sortedValues(dsPatches), "kubectl delete pod -n <ns> <pod>   # pods not owned by a DaemonSet: fix their owner's nodeSelector")}
		return f
	}
	if stuck, why := pendingUntolerated(pods, events, taint); len(stuck) > 0 {
		f := c.Fail(fmt.Sprintf("Windows pods Pending: they do not tolerate %s: %s", taint.ToString(), strings.Join(stuck, ", "))).With(why...)
		f = f.With(fmt.Sprintf("expected: a toleration {key: %s, operator: Equal, value: %s, effect: %s} and nodeSelector kubernetes.io/os: windows",
			taint.Key, taint.Value, taint.Effect))
		if note != "" {
			f = f.With(note)
		}
		f.Fix = &Fix{ID: "add-toleration", Title: "Add the Windows toleration to the Pending workloads", Kind: Manual, Verify: c.id,
			Commands: []string{fmt.Sprintf("tolerations: [{key: %q, operator: Equal, value: %q, effect: %s}]   # in each workload's pod template", taint.Key, taint.Value, taint.Effect)},
			Notes:    []string{"or a RuntimeClass whose scheduling.tolerations carries it, so every Windows workload gets it by naming the RuntimeClass"}}
		f = f.Citing(cites...).Citing(evidence.PathEvents)
		return f
	}
	f := c.Pass(fmt.Sprintf("tainted %s; no Linux pods here, no Windows pods stuck on the taint", taint.ToString()), cites...)
	if note != "" {
		f = f.With(note)
	}
	return f
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
