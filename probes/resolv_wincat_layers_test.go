package probes

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestImageLayersRuntimeLog: NPD's patterns found in containerd's own log (which the
// scenarios do not render) fail IMG-LAYERS with the image named and its re-pull; other
// runtime errors pass; no log and no events skip.
func TestImageLayersRuntimeLog(t *testing.T) {
	const img = "mcr.microsoft.com/windows/servercore:ltsc2022"
	bad := strings.Join([]string{
		`time="2024-05-20T14:10:01Z" level=info msg="PullImage \"` + img + `\""`,
		`time="2024-05-20T14:10:02Z" level=error msg="PullImage \"` + img + `\" failed" error="failed to pull and unpack image \"` + img + `\": failed to extract layer sha256:8a1c: archive/tar: invalid tar header"`,
		`time="2024-05-20T14:12:02Z" level=error msg="CreateContainer within sandbox \"3f1c\" failed" error="failed to create containerd container: Failed to unmarshall layerchain json - invalid character '\\x00' looking for beginning of value"`,
	}, "\r\n")
	f := clOne(t, imageLayers{}, "win-1", clEv(map[string]string{"nodes/win-1/log-runtime.log": bad}), Fail,
		img, "image-layer-bad-tar", "hcs-empty-layerchain", "log signature image-layer-bad-tar in nodes/win-1/log-runtime.log")
	if f.Fix == nil || !slices.Contains(f.Fix.Commands, "crictl rmi "+img) || !slices.Contains(f.Fix.Commands, "crictl pull "+img) {
		t.Errorf("fix does not re-pull %s: %+v", img, f.Fix)
	}
	if !slices.ContainsFunc(f.Fix.Notes, func(n string) bool { return strings.Contains(n, "layerchain.json") }) {
		t.Errorf("the layerchain note is missing: %v", f.Fix.Notes)
	}
	if !slices.Contains(f.Evidence, "nodes/win-1/log-runtime.log") {
		t.Errorf("the runtime log is not cited: %v", f.Evidence)
	}
	ok := `time="2024-05-20T14:10:02Z" level=error msg="failed to pull image" error="unexpected status code 401 Unauthorized"` + "\r\n"
	clOne(t, imageLayers{}, "win-1", clEv(map[string]string{"nodes/win-1/log-runtime.log": ok}), Pass, "no layer unpack or corruption error")
	clOne(t, imageLayers{}, "win-1", clEv(map[string]string{}), Skip, "no runtime log")
}

// TestKubeletResolv: "" passes, the default fails on every version, "Host" passes from
// v1.27 only, a named file passes when pods run and warns when nothing shows it exists,
// the kubelet's own error fails, a wrapper-started kubelet is skipped.
func TestKubeletResolv(t *testing.T) {
	nodes := func(version string) string {
		n := clWinNode("win-1")
		n.Status.NodeInfo.KubeletVersion = version
		return string(clList(t, n))
	}
	proc := func(flags string) string {
		b, err := json.Marshal([]map[string]string{{"Name": "kubelet.exe", "CommandLine": `"c:\k\kubelet.exe" --v=2 ` + flags}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	pending := string(clList(t, clPod("default", "web", "win-1", "x", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending })))
	running := string(clList(t, clPod("default", "web", "win-1", "x")))
	cases := []struct {
		name   string
		files  map[string]string
		status Status
		want   []string
	}{
		{"empty flag", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=""`), "cluster/pods.json": pending}, Pass, []string{`resolvConf is ""`}},
		{"config empty", map[string]string{"nodes/win-1/processes.json": proc(`--config=C:\var\lib\kubelet\config.yaml`),
			"nodes/win-1/kubelet-config.json": "resolvConf: \"\"\r\n", "cluster/pods.json": pending}, Pass, []string{"kubelet-config.json (resolvConf)"}},
		{"default", map[string]string{"nodes/win-1/processes.json": proc(`--node-ip=10.0.0.5`), "cluster/pods.json": pending,
			"cluster/nodes.json": nodes("v1.29.4")}, Fail, []string{"/etc/resolv.conf", "the default", "Windows has no such file"}},
		{"host new", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=Host`), "cluster/nodes.json": nodes("v1.29.4")}, Pass, []string{"v1.29.4", "#110566"}},
		{"host old", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=Host`), "cluster/nodes.json": nodes("v1.25.9")}, Fail, []string{"only from v1.27"}},
		{"file with pods", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=C:\etc\kubernetes\cni\hostdns.conf`), "cluster/pods.json": running}, Pass, []string{"default/web runs", "the file exists"}},
		{"file unknown", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=C:\etc\kubernetes\cni\hostdns.conf`), "cluster/pods.json": pending}, Warn, []string{"Test-Path"}},
		{"the kubelet's error", map[string]string{"nodes/win-1/processes.json": proc(`--resolv-conf=C:\etc\kubernetes\cni\hostdns.conf`),
			"nodes/win-1/kubelet.log": `E0308 10:14:40.118203    2904 kuberuntime_sandbox.go:45] "Failed to generate sandbox config for pod" err="Unexpected resolver config value: \"C:\\etc\\kubernetes\\cni\\hostdns.conf\". Expected \"\", \"Host\", or a path to an existing resolv.conf file." pod="default/web"` + "\r\n",
			"cluster/pods.json":       pending}, Fail, []string{"log signature resolv-conf-missing in nodes/win-1/kubelet.log"}},
		{"wrapper service", map[string]string{"nodes/win-1/services.json": `[{"Name":"kubelet","State":"Stopped","PathName":"C:\\k\\nssm.exe","AppParameters":"c:\\k\\kubeletstart.ps1"}]`}, Skip, []string{"no service that runs kubelet.exe"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := clOne(t, kubeletResolv{}, "win-1", clEv(tc.files), tc.status, tc.want...)
			if tc.status >= Warn && (f.Fix == nil || !slices.ContainsFunc(f.Fix.Commands, func(c string) bool { return strings.Contains(c, `--resolv-conf=""`) })) {
				t.Errorf("no --resolv-conf=\"\" remedy: %+v", f.Fix)
			}
		})
	}
}

// TestWincatTable: the sourced images are judged by tag; everything else is unknown.
func TestWincatTable(t *testing.T) {
	cases := []struct {
		ref        string
		has, known bool
	}{
		{"kubeletwin/pause:latest", false, true},
		{"kubeletwin/pause", false, true},
		{"mcr.microsoft.com/oss/kubernetes/pause:1.4.1", true, true},
		{"mcr.microsoft.com/oss/kubernetes/pause:3.9-windows-ltsc2022-amd64", true, true},
		{"mcr.microsoft.com/oss/kubernetes/pause:1.3.0", false, true},
		{"registry.k8s.io/pause:3.10", true, true},
		{"k8s.gcr.io/pause:3.2", false, true},
		{"rancher/pause:3.6", true, true},
		{"mcr.microsoft.com/oss/kubernetes/pause:latest", false, false},
		{"mcr.microsoft.com/k8s/core/pause:1.2.0", false, false},
		{"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause-windows:latest", false, false},
	}
	for _, tc := range cases {
		has, source, known := wincatOf(tc.ref)
		if has != tc.has || known != tc.known || known && source == "" {
			t.Errorf("%s: has %v known %v (source %q), want has %v known %v", tc.ref, has, known, source, tc.has, tc.known)
		}
	}
}
