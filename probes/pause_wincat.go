package probes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// wincatImage is what the sources say of one pause repository's wincat.exe, which
// kubectl port-forward runs inside the pod's pause container on Windows (the kubelet's
// dockershim and containerd's CRI plugin both exec "wincat.exe 127.0.0.1 <port>" there,
// kubernetes/kubernetes#75479, v1.15; FM-25).
type wincatImage struct {
	repo string
	// since is the first tag with wincat.exe; "" when no tag of the repository has it.
	since  string
	source string
}

// wincatTable lists only repositories a source speaks of; any other image is unknown.
func wincatTable() []wincatImage {
	return []wincatImage{
		{repo: sdnPause, source: "microsoft/SDN Kubernetes/windows/Dockerfile builds it FROM mcr.microsoft.com/windows/nanoserver with only CMD cmd /c ping -t localhost: no wincat.exe"},
		{repo: "mcr.microsoft.com/oss/kubernetes/pause", since: "1.4.1",
			source: "kubernetes/website Windows troubleshooting: wincat.exe is in mcr.microsoft.com/oss/kubernetes/pause:1.4.1 (later pages: 3.6); Azure/container-upstream#45 added it to Microsoft's pause build"},
		{repo: "registry.k8s.io/pause", since: "3.4",
			source: "kubernetes build/pause: Windows variants exist from 3.4 (CHANGELOG, #91452) and Dockerfile_windows adds wincat.exe to C:\\Windows\\System32"},
		{repo: "k8s.gcr.io/pause", since: "3.4",
			source: "kubernetes build/pause (the same images under the old registry name): Windows variants from 3.4 with wincat.exe in C:\\Windows\\System32"},
		{repo: "docker.io/rancher/pause", since: "3.6",
			source: "rancher/windows#97: rancher/pause:3.6 for Windows Server 2019 and 2022 contains wincat"},
	}
}

// wincatOf says whether the image has wincat.exe: has, with the source, and known
// false when no source speaks of it.
func wincatOf(ref string) (has bool, source string, known bool) {
	repo, tag := decode.Repo(ref), tagOf(ref)
	for _, w := range wincatTable() {
		if decode.Repo(w.repo) != repo {
			continue
		}
		if w.since == "" {
			return false, w.source, true
		}
		v, ok := leadingVersion(tag)
		first, _ := leadingVersion(w.since)
		if !ok {
			return false, "", false // latest or a digest: which release it is is unknown
		}
		return !versionLess(v, first), w.source, true
	}
	return false, "", false
}

// imageWincat judges wincat.exe for the image, not the one tag: an image's tags all name
// the same content (one image ID), so where a source speaks of any of them it speaks of
// this image. A tag a source says has wincat wins over one no source knows (a private
// mirror's "myregistry/pause:latest" that also carries its upstream tag).
func imageWincat(im decode.Image, tag string) (has bool, source string, known bool) {
	has, source, known = wincatOf(tag)
	if known && has {
		return has, source, known
	}
	for _, t := range im.Tags {
		if decode.NormalizeRef(t) == decode.NormalizeRef(tag) {
			continue
		}
		if h, s, k := wincatOf(t); k && (h || !known) {
			has, source, known = h, s+" (the same image ID, tagged "+t+")", true
			if h {
				break
			}
		}
	}
	return has, source, known
}

// tagOf is the tag of a reference ("" for a digest or none).
func tagOf(ref string) string {
	n := decode.NormalizeRef(ref)
	if i := strings.LastIndex(n, ":"); i > strings.LastIndex(n, "/") {
		return n[i+1:]
	}
	return ""
}

// leadingVersion reads the dotted numbers a tag starts with: "3.9-windows-ltsc2022-amd64"
// is 3.9.
func leadingVersion(tag string) ([]int, bool) {
	head := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' || r == '+' })
	if len(head) == 0 {
		return nil, false
	}
	var out []int
	for _, p := range strings.Split(strings.TrimPrefix(head[0], "v"), ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

func versionLess(a, b []int) bool {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// wincat is IMG-PAUSE's finding for a present pause image: warn where a source says it
// lacks wincat.exe or the logs show port-forward failing for it, else pass saying what is
// known.
func (c C) wincat(sb sandbox, im decode.Image, tag string, cites []string) Finding {
	ms, _, _ := c.scanLogs(true, evidence.KubeletLog, evidence.LogRuntime)
	lines, paths := logSupport(c.id, ms)
	has, source, known := imageWincat(im, tag)
	check := wincatCheck(sb.runtime, tag)
	switch {
	case known && !has:
		f := c.Warn(fmt.Sprintf("pause image %s has no wincat.exe: kubectl port-forward to this node's pods fails", tag), append(cites, paths...)...).
			With(source, "the Kubernetes docs' symptom: \"unable to do port forwarding: wincat not found\"").With(lines...)
		return f.WithFix(multiArchFix(c.id, sb))
	case len(lines) > 0:
		f := c.Warn(fmt.Sprintf("port-forward failed on this node for want of wincat.exe in the pause image %s", tag), append(cites, paths...)...).With(lines...)
		if known {
			f = f.With("the sources say " + tag + " has it (" + source + "): the sandbox may run another image than the one configured now")
		}
		return f.With("to check the image: " + check).WithFix(multiArchFix(c.id, sb))
	case known:
		return c.Pass(fmt.Sprintf("pause image %s is present (%s) and carries wincat.exe for port-forward", tag, sb.runtime), cites...).With(source)
	}
	return c.Pass(fmt.Sprintf("pause image %s is present (%s)", tag, sb.runtime), cites...).
		With("whether it has wincat.exe, which kubectl port-forward needs, is not in the sources; to check: " + check)
}

// wincatCheck is the command that shows whether an image holds wincat.exe, where
// kubernetes build/pause/Dockerfile_windows puts it.
func wincatCheck(runtime, ref string) string {
	const test = `cmd /c "if exist C:\Windows\System32\wincat.exe (echo wincat present) else (echo wincat missing)"`
	if runtime == "docker" {
		return "docker run --rm --entrypoint cmd " + ref + strings.TrimPrefix(test, "cmd")
	}
	return "ctr -n k8s.io run --rm " + ref + " wincat-check " + test
}
