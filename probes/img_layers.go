package probes

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// imageLayers (IMG-LAYERS): no image on the node has a layer the runtime failed to
// unpack or found corrupt (FM-29). The evidence is the runtime's log, the kubelet's log
// and the node's events, matched with node-problem-detector's Windows containerd
// patterns (imageSignatures). No other probe reads image integrity, so the lines are this
// finding; the remedy is the one NPD's reasons imply and containerd/containerd#5854's
// maintainers give: remove the image and pull it again.
type imageLayers struct{}

func (imageLayers) Spec() Spec {
	return Spec{ID: "IMG-LAYERS", Layouts: allLayouts(), Title: "no image layer the runtime failed to unpack or found corrupt",
		FM:    []string{"FM-29"},
		Reads: []evidence.Ref{evidence.LogRuntime, evidence.KubeletLog, evidence.Events, evidence.Pods, evidence.WindowsServices, evidence.Processes}}
}

// imageRef finds the image a line names: `image "<ref>"` as the kubelet's and
// containerd's pull errors print it, with the quotes escaped once or twice in logrus and
// klog structured values.
const imageRefPattern = `image \\{0,3}"([^"\\\s]+)`

func (imageLayers) Check(c C) Finding {
	ms, read, _ := c.scanLogs(true, evidence.LogRuntime, evidence.KubeletLog)
	if len(read) == 0 {
		return c.Skip("no runtime log, kubelet log or events to read", c.Path(evidence.LogRuntime), c.Path(evidence.KubeletLog))
	}
	var hits []logMatch
	for _, m := range ms {
		if m.supports() == c.id {
			hits = append(hits, m)
		}
	}
	if len(hits) == 0 {
		return c.Pass("no layer unpack or corruption error in "+strings.Join(read, ", "), read...)
	}
	imageRe := regexp.MustCompile(imageRefPattern)
	var images, reasons, paths []string
	for _, m := range hits {
		if sm := imageRe.FindStringSubmatch(m.text); sm != nil && !slices.Contains(images, sm[1]) {
			images = append(images, sm[1])
		}
		if !slices.Contains(reasons, m.sig.id) {
			reasons = append(reasons, m.sig.id)
		}
		if !slices.Contains(paths, m.path) {
			paths = append(paths, m.path)
		}
	}
	// A create error names no image; its Failed event names the pod's container, whose
	// image pods.json has.
	for _, img := range c.eventImages(hits) {
		if !slices.Contains(images, img) {
			images = append(images, img)
		}
	}
	lines, _ := logSupport(c.id, hits)
	named := "an image"
	if len(images) > 0 {
		named = strings.Join(images, ", ")
	}
	f := c.Fail(fmt.Sprintf("the runtime cannot unpack %s: %s", named, strings.Join(reasons, ", ")), paths...).With(lines...)
	if len(hits) > len(lines) {
		f = f.With(fmt.Sprintf("%d line(s) of the same in all", len(hits)))
	}
	return f.WithFix(relayerFix(c, images, slices.Contains(reasons, "hcs-empty-layerchain")))
}

// eventImages are the images of the pod containers that the matching Failed events are
// about (involvedObject spec.containers{name}).
func (c C) eventImages(hits []logMatch) []string {
	evs, ok := optional(c, evidence.Events)
	if !ok {
		return nil
	}
	pods, _ := optional(c, evidence.Pods)
	var out []string
	for _, e := range evs {
		if e.Source.Host != c.node && e.ReportingInstance != c.node {
			continue
		}
		text := strings.TrimSpace(e.Reason + ": " + e.Message)
		if !slices.ContainsFunc(hits, func(m logMatch) bool { return m.text == text }) {
			continue
		}
		if img, ok := containerImage(pods, e.InvolvedObject); ok && !slices.Contains(out, img) {
			out = append(out, img)
		}
	}
	return out
}

func containerImage(pods []corev1.Pod, o corev1.ObjectReference) (string, bool) {
	name, ok := strings.CutPrefix(o.FieldPath, "spec.containers{")
	if !ok {
		name, ok = strings.CutPrefix(o.FieldPath, "spec.initContainers{")
	}
	name = strings.TrimSuffix(name, "}")
	for _, p := range pods {
		if p.Namespace != o.Namespace || p.Name != o.Name {
			continue
		}
		for _, ct := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
			if ok && ct.Name == name || !ok && len(p.Spec.Containers) == 1 {
				return ct.Image, true
			}
		}
	}
	return "", false
}

// relayerFix is the manual remedy: remove the image (its content and snapshots go with
// it once nothing uses them) and pull it again, with the runtime's own client.
func relayerFix(c C, images []string, layerchain bool) *Fix {
	svcs, _ := optional(c, evidence.WindowsServices)
	procs, _ := optional(c, evidence.Processes)
	_, dockerSvc := decode.FindService(svcs, "docker")
	_, dockerProc := decode.FindProcess(procs, "dockerd")
	rmi, pull := "crictl rmi", "crictl pull"
	if dockerSvc || dockerProc {
		rmi, pull = "docker rmi -f", "docker pull"
	}
	if len(images) == 0 {
		images = []string{"<image>"}
	}
	cmds := []string{"kubectl get pods -A -o wide --field-selector spec.nodeName=" + c.node + "   # the pods stuck in ContainerCreating or ErrImagePull use the image"}
	for _, img := range images {
		cmds = append(cmds, rmi+" "+img, pull+" "+img)
	}
	notes := []string{
		"the runtime refuses to remove an image a container still uses: delete those pods (or their leftover containers, RUNTIME-LEFTOVERS) first",
		"the same layer failing again after a fresh pull points at the disk or the registry's blob: check HOST-DISK and the System event log for disk errors (kubernetes/kubernetes#78139 found paging errors on the disk)",
	}
	if layerchain {
		notes = append(notes, "layerchain.json full of NUL bytes is left by a write that never reached the disk; removing the image removes the layer folder that holds it. "+
			"Removing the snapshot by hand (ctr -n k8s.io snapshots rm) is not a documented remedy: use it only if crictl rmi leaves the layer behind")
	}
	return &Fix{ID: "repull-image", Title: "Remove the image with the corrupt layer and pull it again", Kind: Manual, Verify: c.id,
		Commands: cmds, Notes: notes}
}
