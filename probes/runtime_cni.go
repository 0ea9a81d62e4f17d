package probes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// runtimeCNI (RUNTIME-CNI): the runtime and its CNI agree. containerd's
// CRI plugin loads the first CNI config in its conf_dir and runs the plugin binaries the
// config's types name from its bin_dir (containerd pkg/cri/config/config_windows.go in
// 1.6/1.7 and internal/cri/config/config_windows.go in 2.x default both to
// %ProgramFiles%\containerd\cni\conf and \bin; go-cni loads the folder, libcni's
// FindInPath looks for "<type>.exe"). On Docker nodes (dockershim, kubelet < 1.24) the
// kubelet itself does the same from its --cni-conf-dir and --cni-bin-dir
// (cmd/kubelet/app/options/container_runtime.go; microsoft/SDN start-kubelet.ps1 passes
// c:\k\cni\config and c:\k\cni). The failures: an installer that wrote the CNI config or
// plugins to another folder than the runtime reads (a regenerated `containerd config
// default` drops conf_dir/bin_dir: kubelet then reports "cni plugin not initialized"), or a
// plugin binary missing ("failed to find plugin \"win-overlay\" in path"). The runtime's
// client must reach it: the images and containers snippets run crictl (docker on Docker
// nodes), and their errors while the runtime runs mean its pipe does not answer.
type runtimeCNI struct{}

func (runtimeCNI) Spec() Spec {
	return Spec{ID: "RUNTIME-CNI", Title: "the runtime's CNI folders (containerd's conf_dir/bin_dir, the kubelet's --cni-conf-dir/--cni-bin-dir on Docker) hold the config and the plugins it names; its client reaches it",
		FM: []string{"FM-23", "FM-02"},
		Reads: []evidence.Ref{evidence.CNIDirs, evidence.CNIConfig, evidence.ContainerdConfig, evidence.Images,
			evidence.Containers, evidence.WindowsServices, evidence.KubeletLog, evidence.Processes}}
}

// cniRuntime names what reads the folders: containerd's config keys, or the kubelet's
// flags on a Docker node, with the words the kubelet logs when the folder is empty.
type cniRuntime struct {
	conf, bin, service, client, noConfig string
}

func cniRuntimeOf(d decode.CNIDirs) cniRuntime {
	if d.FromKubelet() {
		// dockershim network/cni: "Unable to update cni config: no networks found in <dir>",
		// and the node's Ready condition says "cni config uninitialized".
		return cniRuntime{conf: "--cni-conf-dir", bin: "--cni-bin-dir", service: "docker", client: "docker",
			noConfig: "the kubelet logs \"Unable to update cni config: no networks found in " + string(d.ConfDir) + "\" and the node stays NotReady (cni config uninitialized)"}
	}
	return cniRuntime{conf: "conf_dir", bin: "bin_dir", service: "containerd", client: "crictl",
		noConfig: "containerd reports \"cni plugin not initialized\" and every sandbox fails"}
}

func (runtimeCNI) Check(c C) Finding {
	dirs, dirsPath, bad := need(c, evidence.CNIDirs)
	if bad != nil {
		if why := c.ev.CollectError(dirsPath); strings.Contains(why, "no containerd config") {
			return c.oldDockerCNI(dirsPath)
		}
		return c.notCollected(dirsPath, bad)
	}
	rt := cniRuntimeOf(dirs)
	cites := []string{dirsPath}
	var problems, facts, missing []string
	if dirs.FromKubelet() {
		cites, facts = c.kubeletCommandLine(cites, facts)
		if !dirs.UsesCNI() {
			return c.Skip(fmt.Sprintf("the Docker node's kubelet runs with --network-plugin=%q, not cni: it reads no CNI folder", string(*dirs.NetworkPlugin)), cites...).
				With(facts...)
		}
	}
	svcs, _ := optional(c, evidence.WindowsServices)
	if s, ok := decode.FindService(svcs, rt.service); ok && !strings.EqualFold(s.Status, "Running") {
		return c.Skip(rt.service+" is not running (SVC-RUNTIME judges it): nothing loads the CNI config now", dirsPath, c.Path(evidence.WindowsServices))
	}
	facts = append(facts,
		fmt.Sprintf("%s %s (%s), %s %s (%s)", rt.conf, dirs.ConfDir, dirs.ConfDirFrom, rt.bin, dirs.BinDir, dirs.BinDirFrom))

	confs := dirs.CNIConfigFiles()
	cfg, cfgOK := optional(c, evidence.CNIConfig)
	if len(confs) == 0 {
		problems = append(problems, fmt.Sprintf("%s %s holds no CNI config (.conf, .conflist, .json): %s", rt.conf, dirs.ConfDir, rt.noConfig))
		if cfgOK {
			cites = append(cites, c.Path(evidence.CNIConfig))
			facts = append(facts, fmt.Sprintf("a CNI config named %q exists in another folder (cni-config.json): it is not where %s looks", cfg.Name, rt.conf))
		}
	} else {
		facts = append(facts, rt.conf+" loads "+confs[0]+" (the first by name)")
	}
	if cfgOK && len(confs) > 0 {
		cites = append(cites, c.Path(evidence.CNIConfig))
		for _, t := range []string{cfg.Type, cfg.Delegate} {
			if t == "" {
				continue
			}
			// The SDN scripts' wincni config names its type with the extension ("wincni.exe").
			if !dirs.HasBinary(t) {
				missing = append(missing, strings.TrimSuffix(t, ".exe")+".exe")
				problems = append(problems, fmt.Sprintf("the config's plugin type %q has no %s.exe in %s %s: the kubelet logs `failed to find plugin %q in path [%s]`",
					t, strings.TrimSuffix(t, ".exe"), rt.bin, dirs.BinDir, t, dirs.BinDir))
			}
		}
	}
	if len(dirs.BinFiles) == 0 {
		problems = append(problems, fmt.Sprintf("%s %s holds no plugin executable", rt.bin, dirs.BinDir))
	} else {
		facts = append(facts, rt.bin+" has "+strings.Join(dirs.BinFiles, ", "))
	}

	// The sandbox image: IMG-PAUSE judges whether it is present; this probe says what
	// containerd is configured with, since a config without it falls back to containerd's
	// built-in default.
	if cc, ok := optional(c, evidence.ContainerdConfig); ok && !dirs.FromKubelet() {
		cites = append(cites, c.Path(evidence.ContainerdConfig))
		if cc.SandboxImage == "" {
			facts = append(facts, "config.toml sets no sandbox image: containerd uses its built-in default pause image")
		} else if imgs, ok := optional(c, evidence.Images); ok {
			if _, found := decode.FindImage(imgs, cc.SandboxImage); found {
				facts = append(facts, "sandbox image "+cc.SandboxImage+" is present")
			} else {
				facts = append(facts, "sandbox image "+cc.SandboxImage+" is not present (IMG-PAUSE)")
			}
		}
	}

	// crictl (docker): the snippets that run it failed while the runtime runs.
	for _, k := range []evidence.Ref{evidence.Images, evidence.Containers} {
		p := c.Path(k)
		why := c.ev.CollectError(p)
		if why == "" || strings.Contains(why, "neither docker nor crictl") || strings.Contains(why, "timed out") {
			continue
		}
		if line := firstLineMentioning(why, rt.client, "pipe", "connect", "rpc error", "context deadline"); line != "" {
			problems = append(problems, rt.client+" could not talk to "+rt.service+" ("+k.Meta().Name+"): "+line)
			cites = append(cites, p)
		}
	}
	slices.Sort(cites)
	cites = slices.Compact(cites)
	if len(problems) > 0 {
		ms, _, _ := c.scanLogs(false, evidence.KubeletLog)
		logDetails, logPaths := logSupport("RUNTIME-CNI", ms)
		fix := cniFix(c.id, dirs)
		if dirs.FromKubelet() {
			fix = dockerCNIFix(c.id, dirs, missing)
		}
		return c.Fail(problems[0], append(cites, logPaths...)...).With(problems[1:]...).With(facts...).With(logDetails...).WithFix(fix)
	}
	return c.Pass(fmt.Sprintf("%s holds %s and %s the plugins it names", rt.conf, confs[0], rt.bin), cites...).With(facts...)
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

// oldDockerCNI is RUNTIME-CNI on a node whose cni-dirs.json failed with "no containerd
// config": a node with neither runtime's folders to list, or evidence collected before
// the snippet listed a Docker node's (the kubelet's --cni-conf-dir/--cni-bin-dir). The
// kubelet's command line in processes.json still names the folders then, but not what is
// in them: the probe says where to look instead of judging.
func (c C) oldDockerCNI(dirsPath string) Finding {
	procs, ok := optional(c, evidence.Processes)
	if ok {
		if p, found := decode.FindProcess(procs, "kubelet"); found {
			if conf, bin, cni := kubeletCNIFlags(string(p.CommandLine)); cni {
				return c.Skip("cni-dirs.json was collected before Docker nodes' CNI folders were listed: the kubelet reads "+conf+" and "+bin+" (processes.json), whose contents this evidence lacks",
					dirsPath, c.Path(evidence.Processes)).
					With("collect again with this version, or on the node: Get-ChildItem '" + conf + "', '" + bin + "' (the config's plugin types need <type>.exe in the second)")
			}
		}
	}
	return c.Skip("not a containerd node (no containerd config.toml) and no Docker kubelet using CNI: no CNI folders to judge", dirsPath)
}

// kubeletCNIFlags reads a dockershim kubelet's CNI folders from its command line, with
// the kubelet's defaults (cmd/kubelet/app/options/container_runtime.go: /etc/cni/net.d and
// /opt/cni/bin, on the system drive on Windows) and the first folder of the
// comma-separated --cni-bin-dir; cni is false unless --network-plugin=cni.
func kubeletCNIFlags(cmdline string) (conf, bin string, cni bool) {
	f := decode.CommandFlags(cmdline)
	conf, bin = `C:\etc\cni\net.d`, `C:\opt\cni\bin`
	if v := f["cni-conf-dir"]; v != "" {
		conf = v
	}
	if v, _, _ := strings.Cut(f["cni-bin-dir"], ","); v != "" {
		bin = v
	}
	return conf, bin, strings.EqualFold(f["network-plugin"], "cni")
}

// dockerCNIFix: on a Docker node the kubelet, not the runtime, reads the folders, so the
// plugin goes into --cni-bin-dir (or the flag is corrected in the script that starts the
// kubelet) and the kubelet restarts.
func dockerCNIFix(verify string, d decode.CNIDirs, missing []string) *Fix {
	plugins := "the missing plugin (e.g. win-bridge.exe, win-overlay.exe, host-local.exe)"
	if len(missing) > 0 {
		plugins = strings.Join(missing, ", ")
	}
	return &Fix{ID: "align-kubelet-cni", Title: "Put the CNI config and plugins where the kubelet's --cni-conf-dir/--cni-bin-dir point (or point the flags at them)", Kind: Manual,
		Verify: verify, Impact: "the kubelet restarts; running pods keep running, new pods wait for it",
		Commands: []string{
			"Get-ChildItem '" + string(d.ConfDir) + "', '" + string(d.BinDir) + "'   # what the kubelet sees",
			"copy " + plugins + " (from the microsoft/SDN or microsoft/windows-container-networking release the layout uses) into " + string(d.BinDir) + ", or correct --cni-bin-dir/--cni-conf-dir where the kubelet is started (microsoft/SDN helper.psm1 Kubelet-Options, or the kubelet service's command line)",
			"restart the kubelet (Restart-Service kubelet, or close and rerun start-kubelet.ps1 in the microsoft/SDN layout)",
		},
		Notes: []string{"the microsoft/SDN scripts download the plugins into c:\\k\\cni (start.ps1 DownloadCniBinaries) and write the config to c:\\k\\cni\\config: a fresh download that failed leaves the folder without them"}}
}

// kubeletCommandLine adds the kubelet's command line, where its CNI folders come from on
// a Docker node, to the facts and its file to the citations.
func (c C) kubeletCommandLine(cites, facts []string) ([]string, []string) {
	if procs, ok := optional(c, evidence.Processes); ok {
		if p, ok := decode.FindProcess(procs, "kubelet"); ok {
			cites = append(cites, c.Path(evidence.Processes))
			facts = append(facts, "the kubelet's command line (processes.json): "+clip(string(p.CommandLine), 400))
		}
	}
	return cites, facts
}
