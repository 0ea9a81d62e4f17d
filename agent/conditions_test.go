package agent

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func TestConditionsByKind(t *testing.T) {
	fs := []probes.Finding{
		{Probe: "SVC-KUBELET", Status: probes.Fail, Summary: "kubelet stopped"},
		{Probe: "SVC-RUNTIME", Status: probes.Fail, Summary: "containerd stopped"},
		{Probe: "HNS-NETWORK", Status: probes.Warn, Summary: "a warning does not set a condition"},
		{Probe: "HOST-DISK", Status: probes.Error, Summary: "disk.json unreadable"},
	}
	got := map[corev1.NodeConditionType][3]string{}
	for _, c := range Conditions(fs, "") {
		got[c.Type] = [3]string{string(c.Status), c.Reason, c.Message}
	}
	want := map[corev1.NodeConditionType][3]string{
		ServiceProblem: {"True", "SVC-KUBELET", "kubelet stopped (and 1 more: SVC-RUNTIME)"},
		NetworkProblem: {"False", "NoWindowsNetworkProblem", "every probe of this kind passes"},
		HostProblem:    {"Unknown", "HOST-DISK", "disk.json unreadable"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("conditions\n got %v\nwant %v", got, want)
	}
	for _, c := range Conditions(nil, "the sweep script failed") {
		if c.Status != corev1.ConditionUnknown || c.Reason != "SweepFailed" {
			t.Errorf("a failed sweep: %s %s %s, want Unknown SweepFailed", c.Type, c.Status, c.Reason)
		}
	}
}

func TestTransitions(t *testing.T) {
	cur := []probes.Finding{{Probe: "A", Status: probes.Fail}, {Probe: "B", Status: probes.Pass}, {Probe: "C", Status: probes.Error}, {Probe: "D", Status: probes.Pass}}
	if got := Transitions(nil, cur); len(got) != 2 || got[0].Probe != "A" || got[1].Probe != "C" || got[0].Recovered {
		t.Errorf("first sweep: %+v, want A and C failing, no recovery", got)
	}
	prev := map[string]probes.Status{"A": probes.Fail, "B": probes.Fail, "C": probes.Pass, "D": probes.Pass}
	got := Transitions(prev, cur)
	want := []Transition{{Probe: "B", Recovered: true}, {Probe: "C"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("transitions %+v, want %+v (A still failing, D still passing: no event)", got, want)
	}
}

func TestPluginResult(t *testing.T) {
	r := Report{Findings: []probes.Finding{{Probe: "SVC-KUBELET", Status: probes.Fail, Summary: "kubelet stopped"}}}
	cases := []struct {
		r    Report
		kind corev1.NodeConditionType
		exit int
		msg  string
	}{
		{r, ServiceProblem, PluginNonOK, "SVC-KUBELET: kubelet stopped"},
		{r, NetworkProblem, PluginOK, "every probe of this kind passes"},
		{Report{SweepError: "no node"}, HostProblem, PluginUnknown, "SweepFailed: no node"},
	}
	for _, c := range cases {
		if exit, msg := PluginResult(c.r, c.kind); exit != c.exit || msg != c.msg {
			t.Errorf("%s: %d %q, want %d %q", c.kind, exit, msg, c.exit, c.msg)
		}
	}
	for in, want := range map[string]corev1.NodeConditionType{"network": NetworkProblem, "Service": ServiceProblem, "WindowsHostProblem": HostProblem} {
		if got, err := ParseKind(in); err != nil || got != want {
			t.Errorf("ParseKind(%q) = %s, %v", in, got, err)
		}
	}
}

// TestEveryProbeHasAKind: each registered probe sorts into one of the three conditions,
// and the network and service conditions each hold some probe (a prefix table gone stale
// would put everything under host).
func TestEveryProbeHasAKind(t *testing.T) {
	n := map[corev1.NodeConditionType]int{}
	for _, p := range probes.Default().Probes() {
		n[KindOf(p.ID())]++
	}
	for _, k := range ConditionTypes() {
		if n[k] < 3 {
			t.Errorf("%s holds %d probes: %v", k, n[k], n)
		}
	}
}
