package agent

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// The Node conditions the agent owns, in node-problem-detector's style: a condition names
// a problem, True means the problem is there, Reason is the failing probe and Message its
// summary; False (with a "No..." reason) once every probe of its kind passes again. Three
// kinds keep `kubectl describe node` readable; the probe itself is in the reason.
const (
	NetworkProblem corev1.NodeConditionType = "WindowsNetworkProblem"
	ServiceProblem corev1.NodeConditionType = "WindowsServiceProblem"
	HostProblem    corev1.NodeConditionType = "WindowsHostProblem"
)

// ConditionTypes are the agent's conditions, in the order it writes them.
func ConditionTypes() []corev1.NodeConditionType {
	return []corev1.NodeConditionType{NetworkProblem, ServiceProblem, HostProblem}
}

// kindPrefixes sort probes into conditions by ID prefix; the first match wins, and a
// probe matching none is a host problem. A Linux worker's probes (mixed clusters) sort
// the same way: the condition names say what the tool is for, not the node's OS.
func kindPrefixes() []struct {
	prefix string
	kind   corev1.NodeConditionType
} {
	return []struct {
		prefix string
		kind   corev1.NodeConditionType
	}{
		{"SVC-LB-POLICY", NetworkProblem}, // kube-proxy's load balancers: the data path
		{"HNS-", NetworkProblem}, {"NET-", NetworkProblem}, {"DNS-", NetworkProblem},
		{"FLANNEL-", NetworkProblem}, {"RUNTIME-CNI", NetworkProblem}, {"NODE-IP", NetworkProblem},
		{"NODE-PODCIDR", NetworkProblem}, {"KUBELET-RESOLV", NetworkProblem},
		{"LINUX-VXLAN", NetworkProblem}, {"LINUX-ROUTES", NetworkProblem}, {"LINUX-CNI-SUBNET", NetworkProblem},
		{"LINUX-IPFORWARD", NetworkProblem}, {"LINUX-KPROXY-CIDR", NetworkProblem}, {"LINUX-KUBELET-DNS", NetworkProblem},
		{"SVC-", ServiceProblem}, {"IMG-", ServiceProblem}, {"RUNTIME-", ServiceProblem},
		{"POD-IMAGE-BUILD", ServiceProblem}, {"LOG-SIGNATURES", ServiceProblem}, {"LINUX-SERVICES", ServiceProblem},
	}
}

// KindOf is the condition a probe's failure sets.
func KindOf(probe string) corev1.NodeConditionType {
	for _, p := range kindPrefixes() {
		if strings.HasPrefix(probe, p.prefix) {
			return p.kind
		}
	}
	return HostProblem
}

// Conditions are the agent's conditions for a node's findings. A failure sets its kind
// True; an error (the probe could not judge) sets it Unknown unless a failure already
// made it True; a sweep that gave nothing (sweepErr) makes every condition Unknown, as
// node-problem-detector does when its plugin cannot run. Times are left to the caller.
func Conditions(fs []probes.Finding, sweepErr string) []corev1.NodeCondition {
	var out []corev1.NodeCondition
	for _, kind := range ConditionTypes() {
		c := corev1.NodeCondition{Type: kind, Status: corev1.ConditionFalse, Reason: "No" + string(kind),
			Message: "every probe of this kind passes"}
		if sweepErr != "" {
			c.Status, c.Reason, c.Message = corev1.ConditionUnknown, "SweepFailed", sweepErr
			out = append(out, c)
			continue
		}
		var failing, erring []probes.Finding
		for _, f := range fs {
			if KindOf(f.Probe) != kind || f.Probe == probes.ReachID {
				continue
			}
			switch f.Status {
			case probes.Fail:
				failing = append(failing, f)
			case probes.Error:
				erring = append(erring, f)
			}
		}
		switch {
		case len(failing) > 0:
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, failing[0].Probe, message(failing)
		case len(erring) > 0:
			c.Status, c.Reason, c.Message = corev1.ConditionUnknown, erring[0].Probe, message(erring)
		}
		out = append(out, c)
	}
	return out
}

// message is the first finding's summary, saying how many more there are.
func message(fs []probes.Finding) string {
	m := fs[0].Summary
	if len(fs) > 1 {
		var others []string
		for _, f := range fs[1:] {
			others = append(others, f.Probe)
		}
		m += fmt.Sprintf(" (and %d more: %s)", len(fs)-1, strings.Join(others, ", "))
	}
	return m
}

// Transition is a probe that started or stopped failing between two sweeps: each one
// becomes an Event on the Node.
type Transition struct {
	Probe     string
	Recovered bool // false: it fails now; true: it failed and passes now
	Summary   string
}

// Transitions compares two sweeps' findings; prev nil (the first sweep the agent knows
// of) reports every failure and no recovery.
func Transitions(prev map[string]probes.Status, cur []probes.Finding) []Transition {
	var out []Transition
	for _, f := range cur {
		was, known := prev[f.Probe]
		failing := f.Status >= probes.Fail
		switch {
		case failing && (!known || was < probes.Fail):
			out = append(out, Transition{Probe: f.Probe, Summary: f.Summary})
		case !failing && known && was >= probes.Fail:
			out = append(out, Transition{Probe: f.Probe, Recovered: true, Summary: f.Summary})
		}
	}
	return out
}

// statuses indexes findings' statuses by probe.
func statuses(fs []probes.Finding) map[string]probes.Status {
	m := make(map[string]probes.Status, len(fs))
	for _, f := range fs {
		m[f.Probe] = f.Status
	}
	return m
}
