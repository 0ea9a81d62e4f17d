package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// MultiArchPause is the pause image Microsoft and the Kubernetes docs recommend: a
// manifest list with a Windows image per build, and wincat for port-forward.
const MultiArchPause = "mcr.microsoft.com/oss/kubernetes/pause:3.6"

const nanoserverRepo = "mcr.microsoft.com/windows/nanoserver"

// sandbox is the configured pause image and who configures it.
type sandbox struct {
	ref     string
	runtime string // "docker" or "containerd"
	source  string // evidence path
	// repoOnly: the tag is not in the evidence (rke2's containerd config is not swept),
	// so any tag of ref's repository is the sandbox image.
	repoOnly bool
}

// find looks the sandbox image up among the node's images.
func (sb sandbox) find(imgs []decode.Image) (decode.Image, string, bool) {
	if !sb.repoOnly {
		im, ok := decode.FindImage(imgs, sb.ref)
		return im, sb.ref, ok
	}
	for _, im := range imgs {
		for _, t := range im.Tags {
			if decode.Repo(t) == decode.Repo(sb.ref) {
				return im, t, true
			}
		}
	}
	return decode.Image{}, sb.ref, false
}

// rke2Pause is rke2's pause repository (rancher/rke2 pkg/images DefaultPauseImage; the
// tag is set at build time from scripts/version.sh PAUSE_VERSION).
const rke2Pause = "docker.io/rancher/mirrored-pause"

// sandboxImage finds the pause image: containerd's sandbox_image, or the kubelet's
// --pod-infra-container-image on Docker nodes.
func (c C) sandboxImage() (sandbox, bool) {
	svcs, _ := optional(c, evidence.WindowsServices)
	procs, _ := optional(c, evidence.Processes)
	_, dockerSvc := decode.FindService(svcs, "docker")
	_, dockerProc := decode.FindProcess(procs, "dockerd")
	if !dockerSvc && !dockerProc {
		if cfg, ok := optional(c, evidence.ContainerdConfig); ok && cfg.SandboxImage != "" {
			return sandbox{cfg.SandboxImage, "containerd", c.Path(evidence.ContainerdConfig), false}, true
		}
	}
	if p, ok := decode.FindProcess(procs, "kubelet"); ok {
		if v := decode.CommandFlags(string(p.CommandLine))["pod-infra-container-image"]; v != "" {
			return sandbox{v, "docker", c.Path(evidence.Processes), false}, true
		}
	}
	if s, ok := decode.FindService(svcs, "kubelet"); ok {
		if v := decode.CommandFlags(s.PathName + " " + s.AppParameters)["pod-infra-container-image"]; v != "" {
			return sandbox{v, "docker", c.Path(evidence.WindowsServices), false}, true
		}
	}
	// rke2 writes the sandbox image into its own containerd config
	// (C:\var\lib\rancher\rke2\agent\etc\containerd\config.toml), which the sweep does
	// not read: judge by rke2's pause repository.
	if _, ok := c.onRKE2(procs); ok {
		return sandbox{rke2Pause, "containerd", c.Path(evidence.Processes), true}, true
	}
	// An SDN-script Docker node (no kubelet service) whose kubelet is not running to show
	// its flags: the scripts register the node with kubeletwin/pause.
	if _, kubeletSvc := decode.FindService(svcs, "kubelet"); (dockerSvc || dockerProc) && !kubeletSvc {
		return sandbox{sdnPause, "docker", c.Path(evidence.WindowsServices), false}, true
	}
	return sandbox{}, false
}

// sdnPause is the pause image the microsoft/SDN scripts build and register nodes with.
const sdnPause = "kubeletwin/pause"

// pauseImage (IMG-PAUSE): the configured sandbox image exists locally under exactly
// that reference.
type pauseImage struct{}

func (pauseImage) Spec() Spec {
	return Spec{ID: "IMG-PAUSE", Layouts: layoutsExcept(LayoutWMCO), Title: "pause (sandbox) image present, with wincat for port-forward", FM: []string{"FM-03", "FM-25"},
		Reads: []evidence.Ref{evidence.Images, evidence.Processes, evidence.WindowsServices, evidence.ContainerdConfig, evidence.Pods, evidence.ClusterNodes,
			evidence.KubeletLog, evidence.LogRuntime, evidence.Events}}
}

func (pauseImage) Check(c C) Finding {
	if f, refused := c.containerdRefusesConfig(); refused {
		return f
	}
	sb, ok := c.sandboxImage()
	if !ok {
		if file, ok := c.runtimeConfigElsewhere(); ok {
			return c.Skip("containerd reads its config from "+file+", which the sweep did not collect: its sandbox_image is unknown", c.Path(evidence.Processes), c.Path(evidence.ContainerdConfig)).
				With("collect it: Get-Content -Raw '" + file + "' (sandbox_image, or pinned_images.sandbox in a version 3 config)")
		}
		return c.Skip("no sandbox image configured explicitly (no containerd sandbox_image, no kubelet --pod-infra-container-image)")
	}
	imgs, imgPath, bad := need(c, evidence.Images)
	if bad != nil {
		return *bad
	}
	cites := []string{imgPath, sb.source}
	if im, tag, ok := sb.find(imgs); ok {
		f := c.wincat(sb, im, tag, cites)
		if sb.repoOnly {
			f = f.With("rke2 pins its own pause image, " + rke2Pause + " (or the same path under --system-default-registry); its containerd config " +
				rke2Dir + `\agent\etc\containerd\config.toml, which the sweep does not read, names the tag; mirrors are set in C:\etc\rancher\rke2\registries.yaml`)
		}
		return f
	}
	if why, ok := c.notPulledYet(sb.ref); ok {
		// Docker (dockershim) and containerd's CRI plugin pull the sandbox image when the
		// first pod sandbox starts: a node no pod has run on yet has not got it, and is
		// not broken for that (SDN Kubelet-Options names mcr.microsoft.com/k8s/core/pause:1.2.0).
		return c.Warn(fmt.Sprintf("pause image %s is not pulled yet: %s", sb.ref, why), append(cites, evidence.PathPods)...).
			With("the runtime pulls it when the first pod starts; on a node without access to "+registryOf(sb.ref)+" that pull fails",
				"to check now: docker pull "+sb.ref+" (Docker) or crictl pull "+sb.ref+" (containerd)")
	}
	f := c.Fail(fmt.Sprintf("pause image %s is not on the node", sb.ref), cites...).With(fmt.Sprintf("expected: %s (configured in %s)", decode.NormalizeRef(sb.ref), sb.source),
		"actual: "+tagList(imgs),
		"pods stay in ContainerCreating with FailedCreatePodSandBox")
	var choices []*Fix
	if nano, ok := nanoserverTrap(imgs); ok {
		f = f.With(fmt.Sprintf("trap: the SDN pause Dockerfile builds FROM %s with no tag (implicit :latest, not published since 2019); this node has it only as %s", nanoserverRepo, nano))
		choices = append(choices, buildPauseFix(c.id, nano, sb.ref))
	} else if src, ok := sameRepo(imgs, sb.ref); ok {
		choices = append(choices, tagFix(c.id, sb.runtime, src, sb.ref))
	}
	choices = append(choices, multiArchFix(c.id, sb))
	f.Fix = choices[0]
	if len(choices) > 1 {
		f.Fix = &Fix{ID: "pause-image", Title: "Provide the pause image (choose one)", Kind: choices[0].Kind,
			Verify: c.id, VerifyStatus: choices[0].VerifyStatus, Choices: choices, Commands: choices[0].Commands, Action: choices[0].Action, Params: choices[0].Params}
	}
	return f
}

// notPulledYet says why a missing sandbox image is expected: it comes from a registry
// (not the SDN scripts' locally built kubeletwin/pause, which no registry serves) and no
// pod that needs a sandbox has been bound to this node yet.
func (c C) notPulledYet(ref string) (string, bool) {
	if decode.Repo(ref) == decode.Repo(sdnPause) {
		return "", false
	}
	pods, ok := optional(c, evidence.Pods)
	if !ok {
		return "", false
	}
	for _, p := range pods {
		if p.Spec.NodeName == c.node && !p.Spec.HostNetwork {
			return "", false
		}
	}
	return "no pod with its own network has been bound to this node", true
}

// registryOf is the registry host a reference is pulled from ("docker.io" when unnamed).
func registryOf(ref string) string {
	host, _, _ := strings.Cut(decode.NormalizeRef(ref), "/")
	return host
}

func tagList(imgs []decode.Image) string {
	var tags []string
	for _, im := range imgs {
		tags = append(tags, im.Tags...)
	}
	if len(tags) == 0 {
		return "no tagged images"
	}
	return strings.Join(tags, ", ")
}

// nanoserverTrap: nanoserver present, but not as :latest.
func nanoserverTrap(imgs []decode.Image) (string, bool) {
	if _, ok := decode.FindImage(imgs, nanoserverRepo+":latest"); ok {
		return "", false
	}
	for _, im := range imgs {
		for _, t := range im.Tags {
			if decode.Repo(t) == nanoserverRepo {
				return t, true
			}
		}
	}
	return "", false
}

// sameRepo finds a local image of the same repository under another tag.
func sameRepo(imgs []decode.Image, ref string) (string, bool) {
	repo := decode.Repo(ref)
	for _, im := range imgs {
		for _, t := range im.Tags {
			if decode.Repo(t) == repo {
				return t, true
			}
		}
	}
	return "", false
}

func buildPauseFix(verify, nano, target string) *Fix {
	f := &Fix{
		ID: "build-pause", Title: fmt.Sprintf("Tag %s as nanoserver:latest and build %s", nano, target), Kind: NodeScript,
		Action: "fix-build-pause", Params: map[string]any{"Source": nano, "Target": target, "Dir": `C:\k`},
		Commands: []string{
			fmt.Sprintf("docker tag %s %s:latest", nano, nanoserverRepo),
			fmt.Sprintf(`cd C:\k; docker build -t %s .   # the SDN InstallImages.ps1 step, with its Dockerfile`, target),
		},
		Verify: verify, Precheck: "pause image still missing",
	}
	// The SDN Dockerfile's image has no wincat.exe: once built, IMG-PAUSE warns for
	// port-forward (wincatTable), which is the fix working, not failing.
	if has, _, known := wincatOf(target); known && !has {
		f.VerifyStatus = Exactly(Warn)
		f.Notes = append(f.Notes, "the built image has no wincat.exe, so kubectl port-forward stays broken: IMG-PAUSE then warns; "+MultiArchPause+" has both")
	}
	return f
}

func tagFix(verify, runtime, src, target string) *Fix {
	cmd := fmt.Sprintf("docker tag %s %s", src, target)
	if runtime == "containerd" {
		cmd = fmt.Sprintf("ctr -n k8s.io images tag --force %s %s", src, target)
	}
	return &Fix{
		ID: "tag-pause", Title: fmt.Sprintf("Tag the local %s as %s", src, target), Kind: NodeScript, Action: "fix-tag-image",
		Params:   map[string]any{"Runtime": runtime, "Source": src, "Target": target},
		Commands: []string{cmd}, Verify: verify, Precheck: "pause image still missing",
		Notes: []string{"only right if " + src + " really is a pause image for this host's build"},
	}
}

func multiArchFix(verify string, sb sandbox) *Fix {
	if sb.runtime == "containerd" {
		return &Fix{
			ID: "multiarch-pause", Title: "Point containerd at the multi-arch pause image " + MultiArchPause, Kind: NodeScript,
			Action: "fix-sandbox-image", Params: map[string]any{"Image": MultiArchPause},
			Commands: []string{
				fmt.Sprintf(`(edit) $env:ProgramFiles\containerd\config.toml: sandbox_image = "%s"   # a .bak copy is kept`, MultiArchPause),
				"crictl pull " + MultiArchPause,
				"Restart-Service containerd -Force",
			},
			Disruptive: true, Impact: "restarting containerd briefly interrupts container operations on this node (running containers keep running)",
			Verify: verify, Precheck: "pause image still missing",
		}
	}
	return &Fix{
		ID: "multiarch-pause", Title: "Use the multi-arch pause image " + MultiArchPause, Kind: Manual, Verify: verify,
		Commands: []string{
			"docker pull " + MultiArchPause,
			"restart the kubelet with --pod-infra-container-image=" + MultiArchPause + " (kubelet < 1.27)",
		},
		Notes: []string{"it carries a Windows image per build and wincat.exe, which kubectl port-forward needs"},
	}
}

// pauseBuild (IMG-PAUSE-BUILD): under process isolation the pause image's build must
// match the host's.
type pauseBuild struct{}

func (pauseBuild) Spec() Spec {
	return Spec{ID: "IMG-PAUSE-BUILD", Layouts: layoutsExcept(LayoutWMCO), Title: "pause image build matches the host", FM: []string{"FM-04"},
		Reads: []evidence.Ref{evidence.Images, evidence.Host, evidence.Processes, evidence.WindowsServices, evidence.ContainerdConfig,
			evidence.KubeletLog, evidence.Events, evidence.ClusterNodes}}
}

func (pauseBuild) Check(c C) Finding {
	if cfg, ok := optional(c, evidence.ContainerdConfig); ok && cfg.Refused != "" {
		return c.Skip("containerd refuses its config file, so the sandbox image it would use is unknown (IMG-PAUSE judges the file)", c.Path(evidence.ContainerdConfig))
	}
	sb, ok := c.sandboxImage()
	if !ok {
		if file, ok := c.runtimeConfigElsewhere(); ok {
			return c.Skip("containerd reads its config from "+file+", which the sweep did not collect: its sandbox_image is unknown", c.Path(evidence.Processes), c.Path(evidence.ContainerdConfig))
		}
		return c.Skip("no sandbox image configured explicitly")
	}
	imgs, imgPath, bad := need(c, evidence.Images)
	if bad != nil {
		return *bad
	}
	img, _, ok := sb.find(imgs)
	if !ok {
		return c.Skip("pause image missing (see IMG-PAUSE)")
	}
	imgBuild, ok := decode.ParseVersion(img.OSVersion)
	if !ok {
		return c.Skip(fmt.Sprintf("the runtime did not report an OS version for %s (a multi-arch image resolves per host)", sb.ref))
	}
	host, hostPath, bad := need(c, evidence.Host)
	if bad != nil {
		return *bad
	}
	hb, _ := host.Build()
	cites := []string{imgPath, hostPath}
	if decode.Compatible(hb, imgBuild) {
		return c.Pass(fmt.Sprintf("pause image build %s runs on host %s", img.OSVersion, host.Version()), cites...)
	}
	f := c.Fail(fmt.Sprintf("%s pause image on a %s host", decode.BuildName(imgBuild), decode.BuildName(hb)), cites...).With(fmt.Sprintf("expected: an image built for 10.0.%d (host %s)", hb, host.Version()),
		fmt.Sprintf("actual: %s is %s", sb.ref, img.OSVersion),
		"process isolation needs the first three version parts to match: 'The container operating system does not match the host operating system'")
	f.Fix = multiArchFix(c.id, sb)
	ms, _, _ := c.scanLogs(true, evidence.KubeletLog)
	lines, paths := logSupport(c.id, ms)
	return f.With(lines...).Citing(paths...)
}

// containerdRefusesConfig judges a config.toml containerd itself does not load (a table
// declared twice, decode.ContainerdConfig.Refused): a containerd running now loaded an
// earlier file and will not start again with this one (warn); one not running does not
// start at all (fail). Docker nodes do not read the file.
func (c C) containerdRefusesConfig() (Finding, bool) {
	cfg, ok := optional(c, evidence.ContainerdConfig)
	if !ok || cfg.Refused == "" {
		return Finding{}, false
	}
	path := c.Path(evidence.ContainerdConfig)
	procs, procsOK := optional(c, evidence.Processes)
	if _, docker := decode.FindProcess(procs, "dockerd"); docker {
		return Finding{}, false
	}
	fix := &Fix{ID: "containerd-config-once", Title: "Declare each table of containerd's config.toml once, then restart containerd", Kind: Manual, Verify: c.id,
		Commands: []string{`& 'C:\Program Files\containerd\containerd.exe' config dump   # fails the same way until the file is fixed`,
			"remove the repeated [table] header (merge its keys into the first), then Restart-Service containerd"},
		Impact: "containers keep running; new pods wait while containerd restarts"}
	running, known, cites := c.containerdRuns(procs, procsOK)
	cites = append([]string{path}, cites...)
	switch {
	case running:
		return c.Warn("containerd's config file is one containerd refuses: "+cfg.Refused, cites...).
			With("the running containerd loaded an earlier version of the file; it will not start again with this one (after a reboot or restart the node has no runtime)").
			WithFix(fix), true
	case !known:
		// A bundle without processes.json or services.json: the file is refused, whether
		// the node has a runtime now is not shown.
		return c.Warn("containerd's config file is one containerd refuses: "+cfg.Refused, cites...).
			With("whether containerd runs now is not in the evidence (no processes.json or services.json): if it is stopped it cannot start; if it runs, it will not start again with this file").
			WithFix(fix), true
	}
	return c.Fail("containerd does not start with its config file: "+cfg.Refused, cites...).WithFix(fix), true
}

// containerdRuns says whether containerd runs, from its process or else its service, and
// whether the evidence shows either, with the files it read.
func (c C) containerdRuns(procs []decode.Process, procsOK bool) (running, known bool, cites []string) {
	if procsOK {
		_, running = decode.FindProcess(procs, "containerd")
		return running, true, []string{c.Path(evidence.Processes)}
	}
	svcs, ok := optional(c, evidence.WindowsServices)
	if !ok {
		return false, false, nil
	}
	s, found := decode.FindService(svcs, "containerd")
	return found && s.Status == "Running", true, []string{c.Path(evidence.WindowsServices)}
}

// runtimeConfigElsewhere is the config file containerd runs with (--config or -c on its
// command line) when it is not the one the sweep reads ($env:ProgramFiles\containerd\
// config.toml) and containerd-config.toml is missing: WMCO's
// C:\k\containerd\containerd_conf.toml (pkg/services/services.go), rke2's
// agent\etc\containerd\config.toml. Its settings are then unknown, not absent.
func (c C) runtimeConfigElsewhere() (string, bool) {
	if _, ok := optional(c, evidence.ContainerdConfig); ok {
		return "", false
	}
	procs, _ := optional(c, evidence.Processes)
	p, ok := decode.FindProcess(procs, "containerd")
	if !ok {
		return "", false
	}
	flags := decode.CommandFlags(string(p.CommandLine))
	file := flags["config"]
	if file == "" {
		file = flags["c"]
	}
	if file == "" || strings.EqualFold(file, `C:\Program Files\containerd\config.toml`) {
		return "", false
	}
	return file, true
}
