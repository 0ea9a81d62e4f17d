package probes

import (
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
)

// oldDockerCNI is RUNTIME-CNI on a node whose cni-dirs.json failed with "no containerd
// config": a node with neither runtime's folders to list, or evidence collected before
// the snippet listed a Docker node's (the kubelet's --cni-conf-dir/--cni-bin-dir). The
// kubelet's command line in processes.json still names the folders then, but not what is
// in them: the probe says where to look instead of judging.
func (c C) oldDockerCNI(dirsPath string) Finding {
	procs, ok := optional(c, evidence.Processes())
	if ok {
		if p, found := decode.FindProcess(procs, "kubelet"); found {
			if conf, bin, cni := kubeletCNIFlags(string(p.CommandLine)); cni {
				return c.Skip("cni-dirs.json was collected before Docker nodes' CNI folders were listed: the kubelet reads "+conf+" and "+bin+" (processes.json), whose contents this evidence lacks",
					dirsPath, c.Path(evidence.Processes())).
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
