package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// runtimeCNI (RUNTIME-CNI): containerd and its CNI agree (issue 14, item 7). containerd's
// CRI plugin loads the first CNI config in its conf_dir and runs the plugin binaries the
// config's types name from its bin_dir (containerd pkg/cri/config/config_windows.go in
// 1.6/1.7 and internal/cri/config/config_windows.go in 2.x default both to
// %ProgramFiles%\containerd\cni\conf and \bin; go-cni loads the folder, libcni's
// FindInPath looks for "<type>.exe"). The failures: an installer that wrote the CNI
// config or plugins to another folder than config.toml names (a regenerated
// `containerd config default` drops conf_dir/bin_dir: kubelet then reports "cni plugin not
// initialized"), or a plugin binary missing ("failed to find plugin \"win-overlay\" in
// path"). crictl must be able to talk to the runtime: the images and containers snippets
// run crictl, and their errors while containerd runs mean the CRI pipe does not answer.
type runtimeCNI struct{}

func (runtimeCNI) Spec() Spec {
	return Spec{ID: "RUNTIME-CNI", Title: "containerd's CNI folders hold the config and the plugins it names; crictl reaches the runtime",
		FM: []string{"FM-23", "FM-02"},
		Reads: []evidence.Ref{evidence.CNIDirs(), evidence.CNIConfig(), evidence.ContainerdConfig(), evidence.Images(),
			evidence.Containers(), evidence.Services(), evidence.KubeletLog()}}
}

func (runtimeCNI) Check(c C) Finding {
	dirs, dirsPath, bad := need(c, evidence.CNIDirs())
	if bad != nil {
		if why := c.ev.CollectError(dirsPath); strings.Contains(why, "no containerd config") {
			return c.Skip("not a containerd node (no containerd config.toml): the Docker runtime's CNI folders are the kubelet's --cni-conf-dir/--cni-bin-dir", dirsPath)
		}
		return c.notCollected(dirsPath, bad)
	}
	svcs, _ := optional(c, evidence.Services())
	if s, ok := decode.FindService(svcs, "containerd"); ok && !strings.EqualFold(s.Status, "Running") {
		return c.Skip("containerd is not running (SVC-RUNTIME judges it): nothing loads the CNI config now", dirsPath, c.Path(evidence.Services()))
	}
	cites := []string{dirsPath}
	var problems, facts []string
	facts = append(facts,
		fmt.Sprintf("conf_dir %s (%s), bin_dir %s (%s)", dirs.ConfDir, dirs.ConfDirFrom, dirs.BinDir, dirs.BinDirFrom))

	confs := dirs.CNIConfigFiles()
	cfg, cfgOK := optional(c, evidence.CNIConfig())
	if len(confs) == 0 {
		problems = append(problems, fmt.Sprintf("conf_dir %s holds no CNI config (.conf, .conflist, .json): containerd reports \"cni plugin not initialized\" and every sandbox fails", dirs.ConfDir))
		if cfgOK {
			cites = append(cites, c.Path(evidence.CNIConfig()))
			facts = append(facts, fmt.Sprintf("a CNI config named %q exists in another folder (cni-config.json): it is not where containerd looks", cfg.Name))
		}
	} else {
		facts = append(facts, "conf_dir loads "+confs[0]+" (the first by name)")
	}
	if cfgOK && len(confs) > 0 {
		cites = append(cites, c.Path(evidence.CNIConfig()))
		for _, t := range []string{cfg.Type, cfg.Delegate} {
			if t == "" {
				continue
			}
			if !dirs.HasBinary(t) {
				problems = append(problems, fmt.Sprintf("the config's plugin type %q has no %s.exe in bin_dir %s: the kubelet logs `failed to find plugin %q in path [%s]`", t, t, dirs.BinDir, t, dirs.BinDir))
			}
		}
	}
	if len(dirs.BinFiles) == 0 {
		problems = append(problems, fmt.Sprintf("bin_dir %s holds no plugin executable", dirs.BinDir))
	} else {
		facts = append(facts, "bin_dir has "+strings.Join(dirs.BinFiles, ", "))
	}

	// The sandbox image: IMG-PAUSE judges whether it is present; this probe says what
	// containerd is configured with, since a config without it falls back to containerd's
	// built-in default.
	if cc, ok := optional(c, evidence.ContainerdConfig()); ok {
		cites = append(cites, c.Path(evidence.ContainerdConfig()))
		if cc.SandboxImage == "" {
			facts = append(facts, "config.toml sets no sandbox image: containerd uses its built-in default pause image")
		} else if imgs, ok := optional(c, evidence.Images()); ok {
			if _, found := decode.FindImage(imgs, cc.SandboxImage); found {
				facts = append(facts, "sandbox image "+cc.SandboxImage+" is present")
			} else {
				facts = append(facts, "sandbox image "+cc.SandboxImage+" is not present (IMG-PAUSE)")
			}
		}
	}

	// crictl: the snippets that run it failed while containerd runs.
	for _, k := range []evidence.Ref{evidence.Images(), evidence.Containers()} {
		p := c.Path(k)
		why := c.ev.CollectError(p)
		if why == "" || strings.Contains(why, "neither docker nor crictl") || strings.Contains(why, "timed out") {
			continue
		}
		if line := firstLineMentioning(why, "crictl", "pipe", "connect", "rpc error", "context deadline"); line != "" {
			problems = append(problems, "crictl could not talk to containerd ("+k.Meta().Name+"): "+line)
			cites = append(cites, p)
		}
	}
	slices.Sort(cites)
	cites = slices.Compact(cites)
	if len(problems) > 0 {
		ms, _, _ := c.scanLogs(false, evidence.KubeletLog())
		logDetails, logPaths := logSupport("RUNTIME-CNI", ms)
		return c.Fail(problems[0], append(cites, logPaths...)...).With(problems[1:]...).With(facts...).With(logDetails...).
			WithFix(cniFix(c.id, dirs))
	}
	return c.Pass(fmt.Sprintf("conf_dir holds %s and bin_dir the plugins it names", confs[0]), cites...).With(facts...)
}

// firstLineMentioning is the first line of text holding any of the words.
func firstLineMentioning(text string, words ...string) string {
	for _, l := range strings.Split(text, "\n") {
		for _, w := range words {
			if contains(l, w) {
				return strings.TrimSpace(l)
			}
		}
	}
	return ""
}

func cniFix(verify string, d decode.CNIDirs) *Fix {
	return &Fix{ID: "align-containerd-cni", Title: "Put the CNI config and plugins where containerd looks (or point containerd at them)", Kind: Manual,
		Verify: verify, Impact: "containerd restarts; running containers keep running, new sandboxes wait for it",
		Commands: []string{
			"Get-ChildItem '" + string(d.ConfDir) + "', '" + string(d.BinDir) + "'   # what containerd sees",
			"copy the missing plugin (e.g. win-overlay.exe, host-local.exe from a containernetworking/plugins or microsoft/windows-container-networking release) into " + string(d.BinDir) + ", or set conf_dir/bin_dir under [plugins.\"io.containerd.grpc.v1.cri\".cni] (config v2) or [plugins.\"io.containerd.cri.v1.runtime\".cni] (v3) to the folders the installer used",
			"Restart-Service containerd",
		},
		Notes: []string{"`containerd config default` regenerates config.toml without the installer's conf_dir/bin_dir: compare with the layout's installer (sig-windows-tools Install-Containerd.ps1, AKS containerdtemplate.toml)"}}
}
