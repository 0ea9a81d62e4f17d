package agent

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// node-problem-detector's custom plugin protocol (pkg/custompluginmonitor/types): the
// plugin's exit status says OK, NonOK or Unknown, and its standard output is the
// condition's message (cut to the monitor's max_output_length, 80 by default).
const (
	PluginOK      = 0
	PluginNonOK   = 1
	PluginUnknown = 2
)

// ParseKind reads a condition kind as the command line names it: network, service or
// host (or the condition type itself).
func ParseKind(s string) (corev1.NodeConditionType, error) {
	for _, k := range ConditionTypes() {
		short := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(string(k), "Windows"), "Problem"))
		if strings.EqualFold(s, short) || s == string(k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown condition kind %q (want network, service or host)", s)
}

// PluginResult is one sweep as node-problem-detector's custom plugin answers for one
// condition kind: NonOK with "PROBE: summary" when a probe of that kind fails, Unknown
// when the sweep failed or a probe could not judge, else OK.
func PluginResult(r Report, kind corev1.NodeConditionType) (exit int, message string) {
	for _, c := range Conditions(r.Findings, r.SweepError) {
		if c.Type != kind {
			continue
		}
		switch c.Status {
		case corev1.ConditionTrue:
			return PluginNonOK, c.Reason + ": " + c.Message
		case corev1.ConditionUnknown:
			return PluginUnknown, c.Reason + ": " + c.Message
		}
		return PluginOK, c.Message
	}
	return PluginUnknown, "no condition " + string(kind)
}

// ProbesOf are the registry's probes whose failure sets kind: what a plugin run for that
// kind needs to sweep.
func ProbesOf(reg *probes.Registry, kind corev1.NodeConditionType) []probes.Probe {
	var out []probes.Probe
	for _, p := range reg.Probes() {
		if KindOf(p.ID()) == kind {
			out = append(out, p)
		}
	}
	return out
}
