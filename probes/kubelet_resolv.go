package probes

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// kubeletResolv (KUBELET-RESOLV): the kubelet's resolvConf does not name a file Windows
// lacks (FM-24). resolvConf defaults to /etc/resolv.conf on every OS (kubernetes
// pkg/kubelet/types/constants.go ResolvConfDefault, applied by the v1beta1 defaults), and
// the kubelet reads it for every pod sandbox (network/dns GetPodDNS ->
// getHostDNSConfig). There is no version from which a Windows kubelet ignores a missing
// file: before v1.27 it os.Opens the path ("open /etc/resolv.conf: The system cannot find
// the file specified."); from v1.27 (kubernetes/kubernetes#110566, #116800,
// dns_windows.go) "" means no host DNS, "Host" reads the host's DNS servers and suffixes
// (GetNetworkParams and the TCPIP registry keys), and any other value must be an existing
// file, else "Unexpected resolver config value". So "" (or "Host" on v1.27+) is right on
// every layout, and what the node scripts set: sig-windows-tools PrepareNode.ps1, the
// microsoft/SDN Kubelet-Options, AKS, EKS and rke2 all pass --resolv-conf="". A path is
// right only where the file exists (GCE writes C:\etc\kubernetes\cni\hostdns.conf,
// kubernetes/kubernetes#85823): pods running on the node prove it does.
type kubeletResolv struct{}

// hostResolvSince is the first kubelet minor that understands resolvConf "Host".
const hostResolvSince = 27

func (kubeletResolv) Spec() Spec {
	return Spec{ID: "KUBELET-RESOLV", Layouts: layoutsExcept(LayoutWMCO), Title: `kubelet resolvConf is "" (or "Host"), not a file Windows lacks`, FM: []string{"FM-24"},
		Reads: []evidence.Ref{evidence.Processes, evidence.WindowsServices, evidence.KubeletConfig, evidence.ClusterNodes, evidence.Pods,
			evidence.KubeletLog, evidence.Events}}
}

// resolvSetting is the kubelet's effective resolvConf and where it was read.
type resolvSetting struct {
	value, source string
	defaulted     bool // no flag and no config value: the kubelet's default applies
	// configFile is the kubelet's --config file when the sweep did not collect it: then
	// its resolvConf is unknown, not the default (kubeadm writes resolvConf: "" into the
	// Windows kubelet's config, cmd/kubeadm/app/componentconfigs/kubelet_windows.go;
	// WMCO writes resolvConf "" into C:\k\kubelet.conf, pkg/nodeconfig/nodeconfig.go).
	configFile string
}

// kubeletResolvConf: the command line (live process, else the service definition)
// overrides the config file, as kubelet flags do; with neither, the default.
func (c C) kubeletResolvConf() (resolvSetting, bool) {
	procs, _ := optional(c, evidence.Processes)
	svcs, _ := optional(c, evidence.WindowsServices)
	cfg, haveCfg := optional(c, evidence.KubeletConfig)
	p, haveProc := decode.FindProcess(procs, "kubelet")
	s, haveSvc := decode.FindService(svcs, "kubelet")
	// A service that starts a wrapper (AKS: nssm.exe running kubeletstart.ps1) does not
	// show the kubelet's flags: only one whose command line runs kubelet.exe does.
	haveSvc = haveSvc && strings.Contains(strings.ToLower(s.PathName+" "+s.AppParameters), "kubelet.exe")
	if haveProc {
		if v, ok := decode.CommandFlags(string(p.CommandLine))["resolv-conf"]; ok {
			return resolvSetting{value: v, source: c.Path(evidence.Processes) + " (kubelet --resolv-conf)"}, true
		}
	} else if haveSvc {
		if v, ok := decode.CommandFlags(s.PathName + " " + s.AppParameters)["resolv-conf"]; ok {
			return resolvSetting{value: v, source: c.Path(evidence.WindowsServices) + " (kubelet service --resolv-conf)"}, true
		}
	}
	cmdline := string(p.CommandLine)
	if !haveProc {
		cmdline = s.PathName + " " + s.AppParameters
	}
	if file := decode.CommandFlags(cmdline)["config"]; file != "" && (!haveCfg || !sweptKubeletConfig(file)) {
		return resolvSetting{configFile: file, source: "kubelet --config=" + file}, true
	}
	if haveCfg && cfg.ResolvConf != nil {
		return resolvSetting{value: *cfg.ResolvConf, source: c.Path(evidence.KubeletConfig) + " (resolvConf)"}, true
	}
	if !haveProc && !haveSvc {
		return resolvSetting{}, false // the kubelet's command line is unknown: a flag may set it (AKS's kubeletstart.ps1 passes --resolv-conf="")
	}
	src := c.Path(evidence.Processes)
	if !haveProc {
		src = c.Path(evidence.WindowsServices)
	}
	return resolvSetting{value: "/etc/resolv.conf", source: src + " (no --resolv-conf, no resolvConf: the default)", defaulted: true}, true
}

func (kubeletResolv) Check(c C) Finding {
	set, ok := c.kubeletResolvConf()
	if !ok {
		return c.Skip("the kubelet's command line is not in the evidence (no kubelet process, no service that runs kubelet.exe with its flags)",
			c.Path(evidence.Processes), c.Path(evidence.WindowsServices))
	}
	cite := strings.SplitN(set.source, " ", 2)[0]
	minor, version := c.kubeletMinor()
	ms, _, _ := c.scanLogs(true, evidence.KubeletLog)
	lines, logPaths := logSupport(c.id, ms)
	if set.configFile != "" && len(lines) > 0 {
		return c.Fail("the kubelet cannot read the resolvConf its --config file "+set.configFile+" names: pod sandboxes fail", append([]string{c.Path(evidence.Processes)}, logPaths...)...).
			With(lines...).WithFix(resolvFix(c.id, set))
	}
	if set.configFile != "" {
		return c.Skip("the kubelet reads resolvConf from its --config file "+set.configFile+", which the sweep did not collect: its value is unknown, not the default",
			c.Path(evidence.Processes), c.Path(evidence.KubeletConfig)).With(
			"collect it: Get-Content -Raw '" + set.configFile + "' (expect resolvConf: \"\", as kubeadm and OpenShift's WMCO write it), or add --resolv-conf=\"\" to the kubelet's flags")
	}
	switch {
	case set.value == "":
		return c.Pass(`resolvConf is "" (`+set.source+`): pods get the cluster DNS and the kubelet reads no host file`, cite)
	case set.value == "Host" && minor >= hostResolvSince:
		return c.Pass(fmt.Sprintf(`resolvConf is "Host" (%s): kubelet %s reads the host's DNS servers and suffixes (v1.27+, kubernetes/kubernetes#110566)`, set.source, version), cite)
	}
	if len(lines) > 0 {
		return c.Fail(fmt.Sprintf("the kubelet cannot read resolvConf %q: pod sandboxes fail", set.value), append([]string{cite}, logPaths...)...).
			With("set in " + set.source).With(lines...).WithFix(resolvFix(c.id, set))
	}
	if set.value == "Host" && minor > 0 {
		return c.Fail(fmt.Sprintf(`resolvConf is "Host", which kubelet %s opens as a file: "Host" means the host's DNS only from v1.27 (kubernetes/kubernetes#110566)`, version), cite, evidence.PathNodes).
			With("set in " + set.source).WithFix(resolvFix(c.id, set))
	}
	if pod, ok := c.runningPod(); ok {
		return c.Pass(fmt.Sprintf("resolvConf is %q (%s) and pod %s runs on the node: its sandbox got its DNS config, so the file exists", set.value, set.source, pod), cite, evidence.PathPods)
	}
	if set.defaulted || isDefaultResolv(set.value) {
		return c.Fail(fmt.Sprintf("resolvConf is %s: the kubelet opens it for every pod sandbox, and Windows has no such file", set.value), cite).
			With("set in "+set.source, `every kubelet version fails on a missing file: before v1.27 "open /etc/resolv.conf: The system cannot find the file specified.", from v1.27 "Unexpected resolver config value" (pkg/kubelet/network/dns)`,
				`/etc/resolv.conf is \etc\resolv.conf on the kubelet's drive (C:\etc\resolv.conf); only a file made there on purpose makes it work`).
			WithFix(resolvFix(c.id, set))
	}
	return c.Warn(fmt.Sprintf("resolvConf names %q and no pod runs on the node to show the file exists", set.value), cite).
		With("set in "+set.source, "every pod sandbox fails if it is missing; check with: Test-Path '"+set.value+"'").WithFix(resolvFix(c.id, set))
}

func isDefaultResolv(v string) bool {
	v = strings.ToLower(strings.ReplaceAll(v, `\`, "/"))
	return v == "/etc/resolv.conf" || v == "c:/etc/resolv.conf"
}

// kubeletMinor is the minor version of this node's kubelet (nodes.json
// nodeInfo.kubeletVersion, "v1.27.3"), 0 when unknown.
func (c C) kubeletMinor() (int, string) {
	_, self, bad := c.clusterNodes()
	if bad != nil {
		return 0, "of unknown version"
	}
	v := self.Status.NodeInfo.KubeletVersion
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 || parts[0] != "1" {
		return 0, v
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, v
	}
	return m, v
}

// runningPod names a pod bound to this node whose phase is Running: the kubelet built
// its sandbox config, DNS included.
func (c C) runningPod() (string, bool) {
	pods, ok := optional(c, evidence.Pods)
	if !ok {
		return "", false
	}
	for _, p := range pods {
		if p.Spec.NodeName == c.node && p.Status.Phase == corev1.PodRunning {
			return p.Namespace + "/" + p.Name, true
		}
	}
	return "", false
}

func resolvFix(verify string, set resolvSetting) *Fix {
	return &Fix{ID: "kubelet-resolv-conf", Title: `Run the kubelet with --resolv-conf=""`, Kind: Manual, Verify: verify,
		Commands: []string{
			`add --resolv-conf="" to the kubelet's arguments (set now in ` + set.source + `), as sig-windows-tools PrepareNode.ps1 and the microsoft/SDN Kubelet-Options do`,
			`or, with a KubeletConfiguration file: resolvConf: ""   (or resolvConf: "Host" on kubelet v1.27+ for the host's DNS servers)`,
			"Restart-Service kubelet",
		},
		Notes: []string{"pods stuck in ContainerCreating with FailedCreatePodSandBox start once the kubelet retries their sandboxes"}}
}

// sweptKubeletConfig says whether a kubelet --config path is one the kubelet-config.json
// snippet reads (collect/scripts: C:\var\lib\kubelet\config.yaml, C:\k\kubelet-config.yaml,
// C:\etc\kubernetes\kubelet-config.yaml); a Unix-style path is on the kubelet's drive.
func sweptKubeletConfig(file string) bool {
	f := strings.ToLower(strings.ReplaceAll(strings.Trim(file, `"'`), "/", `\`))
	if strings.HasPrefix(f, `\`) {
		f = `c:` + f
	}
	switch f {
	case `c:\var\lib\kubelet\config.yaml`, `c:\k\kubelet-config.yaml`, `c:\etc\kubernetes\kubelet-config.yaml`:
		return true
	}
	return false
}
