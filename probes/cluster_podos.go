package probes

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// linuxOnlyRepos are images with no Windows variant that commonly land on Windows nodes
// through DaemonSets (CNI agents, kube-proxy, monitoring) or careless Deployments.
// Windows builds of these projects are published under other names (calico/node-windows,
// sigwindowstools/kube-proxy, prometheus-community/windows-exporter).
func linuxOnlyRepos() map[string]bool {
	return map[string]bool{
		"registry.k8s.io/kube-proxy": true, "k8s.gcr.io/kube-proxy": true,
		"docker.io/calico/node": true, "quay.io/calico/node": true,
		"docker.io/flannel/flannel": true, "quay.io/coreos/flannel": true, "docker.io/rancher/mirrored-flannelcni-flannel": true,
		"quay.io/cilium/cilium":           true,
		"registry.k8s.io/coredns/coredns": true, "docker.io/coredns/coredns": true,
		"quay.io/prometheus/node-exporter": true, "docker.io/prom/node-exporter": true,
		"registry.k8s.io/kube-state-metrics/kube-state-metrics": true,
		"docker.io/library/nginx":                               true, "docker.io/library/busybox": true, "docker.io/library/alpine": true,
		"docker.io/library/ubuntu": true, "docker.io/library/debian": true,
	}
}

// podOS says which OS a pod asks for: spec.os.name, a kubernetes.io/os nodeSelector, or a
// required node affinity on it; "" when it does not say.
func podOS(p corev1.Pod) (os, why string) {
	if p.Spec.OS != nil && p.Spec.OS.Name != "" {
		return strings.ToLower(string(p.Spec.OS.Name)), "spec.os.name " + string(p.Spec.OS.Name)
	}
	for _, k := range []string{"kubernetes.io/os", "beta.kubernetes.io/os"} {
		if v := p.Spec.NodeSelector[k]; v != "" {
			return strings.ToLower(v), fmt.Sprintf("nodeSelector %s=%s", k, v)
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", ""
	}
	// Terms are ORed: the pod asks for an OS only if every term does.
	os = ""
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		termOS := ""
		for _, e := range term.MatchExpressions {
			if (e.Key == "kubernetes.io/os" || e.Key == "beta.kubernetes.io/os") && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) == 1 {
				termOS = strings.ToLower(e.Values[0])
			}
			if e.Key == "kubernetes.io/os" && e.Operator == corev1.NodeSelectorOpNotIn && len(e.Values) == 1 && strings.EqualFold(e.Values[0], "windows") {
				termOS = "linux"
			}
		}
		if termOS == "" || (os != "" && termOS != os) {
			return "", ""
		}
		os = termOS
	}
	if os == "" {
		return "", ""
	}
	return os, "required node affinity on kubernetes.io/os (" + os + ")"
}

// linuxPod says why a pod is a Linux pod ("" when it does not look like one).
func linuxPod(p corev1.Pod) string {
	os, why := podOS(p)
	switch os {
	case "linux":
		return why
	case "windows":
		return "" // a Linux image in a Windows pod is POD-IMAGE-BUILD's business
	}
	repos := linuxOnlyRepos()
	for _, ctr := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		if repos[decode.Repo(ctr.Image)] {
			return fmt.Sprintf("image %s has no Windows variant", ctr.Image)
		}
	}
	return ""
}

// tolerates applies the scheduler's toleration rule to one taint.
func tolerates(p corev1.Pod, t corev1.Taint) bool {
	for _, tol := range p.Spec.Tolerations {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch {
		case tol.Key == "" && tol.Operator == corev1.TolerationOpExists:
			return true
		case tol.Key != t.Key:
		case tol.Operator == corev1.TolerationOpExists:
			return true
		case (tol.Operator == corev1.TolerationOpEqual || tol.Operator == "") && tol.Value == t.Value:
			return true
		}
	}
	return false
}

// pendingUntolerated finds unscheduled Windows pods the scheduler refused because of this
// taint: its condition or a FailedScheduling event says "untolerated taint {key: value}".
func pendingUntolerated(pods []corev1.Pod, events []corev1.Event, t corev1.Taint) (names, details []string) {
	mark := strings.ToLower(fmt.Sprintf("{%s: %s}", t.Key, t.Value))
	says := func(msg string) bool {
		m := strings.ToLower(msg)
		return strings.Contains(m, mark) && (strings.Contains(m, "untolerated") || strings.Contains(m, "didn't tolerate"))
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" || (p.Status.Phase != "" && p.Status.Phase != corev1.PodPending) || tolerates(p, t) {
			continue
		}
		if os, _ := podOS(p); os != "windows" {
			continue
		}
		msg := ""
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && says(c.Message) {
				msg = fmt.Sprintf("PodScheduled=False %s: %s", c.Reason, c.Message)
			}
		}
		for _, e := range eventsAbout(events, p) {
			if msg == "" && e.Reason == "FailedScheduling" && says(e.Message) {
				msg = "event FailedScheduling: " + e.Message
			}
		}
		if msg != "" {
			names = append(names, podID(p))
			details = append(details, podID(p)+": "+msg)
		}
	}
	return names, details
}
