package probes

import (
	"slices"
	"testing"
)

// TestRuntimeCNIDocker: on a Docker node the folders are the kubelet's flags; old evidence
// that lacks them names the folders from processes.json and skips; a kubelet without
// --network-plugin=cni reads no CNI folder.
func TestRuntimeCNIDocker(t *testing.T) {
	const dirs, cni, procs = "nodes/win-1/cni-dirs.json", "nodes/win-1/cni-config.json", "nodes/win-1/processes.json"
	conf := `{"cniVersion":"0.2.0","name":"l2bridge","type":"wincni.exe"}`
	kubelet := `[{"Name":"kubelet.exe","ProcessId":3416,"CommandLine":"\"c:\\k\\kubelet.exe\" --network-plugin=cni --cni-bin-dir=\"c:\\k\\cni\" --cni-conf-dir \"c:\\k\\cni\\config\""}]`
	d := func(bins, plugin string) string {
		return `{"ConfDir":"c:\\k\\cni\\config","ConfDirFrom":"kubelet-flag","ConfFiles":"L2Bridge.conf","BinDir":"c:\\k\\cni","BinDirFrom":"kubelet-flag","BinFiles":` +
			bins + `,"NetworkPlugin":"` + plugin + `"}`
	}
	f := clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`"wincni.exe"`, "cni"), cni: conf, procs: kubelet}), Pass,
		"--cni-conf-dir holds L2Bridge.conf and --cni-bin-dir the plugins it names")
	if !slices.Contains(f.Evidence, procs) {
		t.Errorf("the kubelet's command line is not cited: %v", f.Evidence)
	}
	f = clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`[]`, "cni"), cni: conf, procs: kubelet}), Fail,
		`"wincni.exe" has no wincni.exe in --cni-bin-dir c:\k\cni`)
	if f.Fix == nil || f.Fix.ID != "align-kubelet-cni" || !contains(f.Fix.Commands[1], "copy wincni.exe") {
		t.Errorf("fix: %+v", f.Fix)
	}
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`[]`, ""), procs: kubelet}), Skip, `--network-plugin="", not cni`)
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs: d(`"wincni.exe"`, "cni"),
		"nodes/win-1/services.json": `[{"Name":"docker","State":"Stopped","StartMode":"Auto"}]`}), Skip, "docker is not running")
	// Evidence from before Docker nodes were listed: the folders from the command line.
	old := "exit 1\nno containerd config at C:\\Program Files\\containerd\\config.toml\n"
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs + ".err": old, procs: kubelet}), Skip,
		`the kubelet reads c:\k\cni\config and c:\k\cni (processes.json)`)
	clOne(t, runtimeCNI{}, "win-1", clEv(map[string]string{dirs + ".err": old}), Skip, "not a containerd node")
}
