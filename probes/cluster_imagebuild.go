package probes

import (
	"fmt"
	"strings"

	"github.com/Microsoft/hcsshim/osversion"
	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// podImageBuild (POD-IMAGE-BUILD): the workload images on a Windows node are built for
// its OS build. Under process isolation a container's build must match the host's (from
// ltsc2022 on, the host also runs the previous LTSC), else it fails with "The container
// operating system does not match the host operating system" (0xc0370101).
type podImageBuild struct{}

func (podImageBuild) Spec() Spec {
	return Spec{ID: "POD-IMAGE-BUILD", Layouts: allLayouts(), Title: "pod images match the node's Windows build", FM: []string{"FM-04"},
		Reads: []evidence.Ref{evidence.ClusterNodes, evidence.Pods, evidence.Events, evidence.KubeletLog}}
}

// osMismatchSigns are the runtime's words for an image built for another OS or build.
func osMismatchSigns() []string {
	return []string{"does not match the host operating system", "0xc0370101", "no matching manifest for windows"}
}

// nodeBuild is the node's build from node.kubernetes.io/windows-build, else kernelVersion.
func nodeBuild(n corev1.Node) (uint16, string, bool) {
	for _, v := range []string{n.Labels["node.kubernetes.io/windows-build"], n.Status.NodeInfo.KernelVersion} {
		if b, ok := decode.ParseVersion(v); ok {
			return b, v, true
		}
	}
	return 0, "", false
}

func (podImageBuild) Check(c C) Finding {
	node := c.node
	_, self, bad := c.clusterNodes()
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
	host, hostVer, hostKnown := nodeBuild(self)
	v := &verdict{cites: []string{evidence.PathNodes, evidence.PathPods}}
	if note != "" {
		v.details = append(v.details, note)
	} else {
		v.cites = append(v.cites, evidence.PathEvents)
	}
	mine := podsBound(c.ev, pods, node)
	windowsFault := false // a failing pod whose Windows image needs another tag
	for _, pod := range mine {
		if msg := mismatchMessage(pod, events); msg != "" {
			what := "the image is built for another OS or Windows build"
			var more []string
			if why := linuxPod(pod); why != "" {
				// A Linux pod has no Windows tag to switch to: it should not be here at all.
				v.add(Fail, fmt.Sprintf("%s fails: a Linux pod on a Windows node", podID(pod)),
					fmt.Sprintf("%s: %s", podID(pod), msg), "it is a Linux pod ("+why+"): keep it off Windows nodes, see NODE-TAINT for the fix")
				continue
			}
			windowsFault = true
			if strings.Contains(strings.ToLower(msg), "sandbox") {
				// The pod's sandbox, not its own image, hit the mismatch.
				what = "its sandbox (pause) image is built for another Windows build"
				more = append(more, "the pause image is at fault, not the workload image: see IMG-PAUSE-BUILD for its fix")
			}
			v.add(Fail, fmt.Sprintf("%s fails: %s", podID(pod), what), append([]string{fmt.Sprintf("%s: %s", podID(pod), msg)}, more...)...)
		}
		if !hostKnown {
			continue
		}
		for _, ctr := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			img, ok := tagBuild(ctr.Image)
			if !ok || decode.Compatible(host, img) {
				continue
			}
			what := fmt.Sprintf("%s image on a %s host", decode.BuildName(img), decode.BuildName(host))
			detail := fmt.Sprintf("%s container %s: image %s names build 10.0.%d; the node is %s", podID(pod), ctr.Name, ctr.Image, img, hostVer)
			if running(pod, ctr.Name) {
				v.add(Warn, fmt.Sprintf("%s (%s), yet it runs", what, podID(pod)), detail,
					"it runs, so Hyper-V isolation (a RuntimeClass) or a multi-arch tag must be in play; under process isolation it would not start")
				continue
			}
			v.add(Fail, fmt.Sprintf("%s: %s", what, podID(pod)), detail)
			windowsFault = true
		}
	}
	if hostKnown {
		v.details = append(v.details, fmt.Sprintf("expected: images built for 10.0.%d (%s), the node's %s", host, decode.BuildName(host), hostVer))
	} else {
		v.details = append(v.details, "the node has neither a node.kubernetes.io/windows-build label nor a kernelVersion: image tags not compared")
	}
	if len(mine) == 0 {
		return c.Skip("no pods on this node", v.cites...)
	}
	f := c.Judge(v.status, v.summary(fmt.Sprintf("%d pod(s): no image names another Windows build, no OS-mismatch errors", len(mine))), v.cites...).With(v.details...)
	if v.status >= Warn && (windowsFault || v.status == Warn) {
		f.Fix = imageBuildFix(c.id, host, hostKnown)
	}
	if v.status >= Warn {
		ms, _, _ := c.scanLogs(true, evidence.KubeletLog)
		lines, paths := logSupport(c.id, ms)
		f = f.With(lines...).Citing(paths...)
	}
	return f
}

// mismatchMessage finds the runtime's OS-mismatch error in the pod's container statuses
// or events.
func mismatchMessage(p corev1.Pod, events []corev1.Event) string {
	var msgs []string
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		for _, st := range []corev1.ContainerState{s.State, s.LastTerminationState} {
			if st.Waiting != nil {
				msgs = append(msgs, st.Waiting.Message)
			}
			if st.Terminated != nil {
				msgs = append(msgs, st.Terminated.Message)
			}
		}
	}
	for _, e := range eventsAbout(events, p) {
		msgs = append(msgs, e.Message)
	}
	for _, m := range msgs {
		low := strings.ToLower(m)
		for _, sign := range osMismatchSigns() {
			if strings.Contains(low, sign) {
				return m
			}
		}
	}
	return ""
}

// tagBuild reads the Windows build an image tag names: "10.0.17763.1879", "ltsc2019",
// "windowsservercore-1809", "3.6-windows-ltsc2022-amd64". ok is false for tags that
// name none (latest, v1.2.3, multi-arch tags).
func tagBuild(image string) (uint16, bool) {
	ref, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || i < strings.LastIndex(ref, "/") {
		return 0, false
	}
	tag := strings.ToLower(ref[i+1:])
	if j := strings.Index(tag, "10.0."); j >= 0 {
		if b, ok := decode.ParseVersion(tag[j:]); ok {
			return b, true
		}
	}
	names := map[string]uint16{
		"ltsc2016": osversion.LTSC2016, "1607": osversion.LTSC2016, "14393": osversion.LTSC2016,
		"1709": osversion.RS3, "16299": osversion.RS3, "1803": osversion.RS4, "17134": osversion.RS4,
		"ltsc2019": osversion.LTSC2019, "1809": osversion.LTSC2019, "17763": osversion.LTSC2019,
		"1903": osversion.V1903, "18362": osversion.V1903, "1909": osversion.V1909, "18363": osversion.V1909,
		"2004": osversion.V2004, "19041": osversion.V2004, "20h2": osversion.V20H2, "19042": osversion.V20H2,
		"ltsc2022": osversion.LTSC2022, "20348": osversion.LTSC2022,
		"23h2": osversion.V23H2, "25398": osversion.V23H2, "ltsc2025": osversion.LTSC2025, "26100": osversion.LTSC2025,
	}
	for _, tok := range strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' }) {
		if b, ok := names[tok]; ok {
			return b, true
		}
	}
	return 0, false
}

func running(p corev1.Pod, container string) bool {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == container && s.State.Running != nil {
			return true
		}
	}
	return false
}

func imageBuildFix(verify string, host uint16, known bool) *Fix {
	tag, pin := "the host's build", "node.kubernetes.io/windows-build: '<node build>'"
	if known {
		tag = fmt.Sprintf("%s (10.0.%d)", decode.BuildName(host), host)
		pin = fmt.Sprintf("node.kubernetes.io/windows-build: '10.0.%d'", host)
	}
	return &Fix{ID: "match-image-build", Title: "Run images built for the node's Windows build", Kind: Manual, Verify: verify,
		Commands: []string{
			"use the image tag built for " + tag + " (ltsc2019 = 10.0.17763, ltsc2022 = 10.0.20348, ltsc2025 = 10.0.26100), or a multi-arch tag that carries it",
			"pin the workload to matching nodes: nodeSelector " + pin + " (or a RuntimeClass per build)",
		},
		Notes: []string{"Hyper-V isolation (a RuntimeClass with the runhcs-wcow-hypervisor handler, containerd) runs other builds where supported",
			"the first three version parts must match under process isolation; the revision (fourth part) may differ"}}
}
