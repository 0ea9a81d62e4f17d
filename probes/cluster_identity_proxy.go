package probes

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// runsAs is the node name a component (kubelet, kube-proxy) runs as, computed the way
// both do it (k8s.io/component-helpers node/util GetHostname, called by kube-proxy's
// server.go and the kubelet): its --hostname-override, else os.Hostname(), trimmed and
// lower-cased. On Windows os.Hostname() is GetComputerNameEx(ComputerNamePhysicalDnsHostname)
// (Go src/os/sys_windows.go): the DNS host name, which host.json's DnsHostName holds
// ([System.Net.Dns]::GetHostName()), not the 15-character NetBIOS ComputerName.
type runsAs struct {
	name     string // "" when the component's command line is not in the evidence
	override string // its --hostname-override as given, "" for none
	from     string // which command line it read
	path     string // the evidence file that holds it
	config   string // its --config file, when it has one and no override flag: the file's hostnameOverride may set one
}

// osHostname is what os.Hostname() returns on the node, lower-cased as GetHostname does.
func osHostname(h decode.Host) string {
	if s := strings.TrimSpace(string(h.DnsHostName)); s != "" {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.TrimSpace(string(h.ComputerName)))
}

// componentRunsAs reads the component's command line: its running process (processes.json),
// else its service (services.json: the binary's PathName, or nssm's AppParameters), else
// its DaemonSet pod's container command and args (cluster/pods.json, $(VAR) expanded from
// the container's env as the kubelet does, spec.nodeName for a fieldRef to it).
func (c C) componentRunsAs(comp component, hostname string) runsAs {
	var r runsAs
	var flags map[string]string
	procs, _ := optional(c, evidence.Processes)
	svcs, _ := optional(c, evidence.WindowsServices)
	if p, ok := decode.FindProcess(procs, comp.processes...); ok {
		flags = decode.CommandFlags(string(p.CommandLine))
		r.from, r.path = fmt.Sprintf("the running %s (pid %d)", p.Name, p.ProcessId), c.Path(evidence.Processes)
	} else if s, ok := decode.FindService(svcs, comp.services...); ok && (s.PathName != "" || s.AppParameters != "") {
		flags = decode.CommandFlags(s.PathName + " " + s.AppParameters)
		r.from, r.path = "service "+s.Name+"'s command line (PathName and nssm AppParameters)", c.Path(evidence.WindowsServices)
	} else if d, ok := c.componentPod(comp); ok {
		args, found := podCommand(d, c.node)
		if !found {
			return runsAs{}
		}
		flags = decode.Flags(args)
		r.from, r.path = "container "+d.container+" of "+d.owner()+" (its command and args)", evidence.PathPods
	} else {
		return runsAs{}
	}
	r.override = flags["hostname-override"]
	if r.override == "" {
		r.config = flags["config"]
	}
	r.name = hostname
	if o := strings.TrimSpace(r.override); o != "" {
		r.name = strings.ToLower(o)
	}
	return r
}

var podVar = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// podCommand is a DaemonSet container's command and args with $(VAR) references expanded
// from its env (value, or a fieldRef to spec.nodeName); found is false when the spec
// gives neither (the image's entrypoint builds the command line, as sig-windows-tools'
// start.ps1 does).
func podCommand(d dsPod, node string) ([]string, bool) {
	for _, ctr := range d.pod.Spec.Containers {
		if ctr.Name != d.container {
			continue
		}
		args := append(append([]string(nil), ctr.Command...), ctr.Args...)
		if len(args) == 0 {
			return nil, false
		}
		env := map[string]string{}
		for _, e := range ctr.Env {
			switch {
			case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName":
				env[e.Name] = node
			case e.ValueFrom == nil:
				env[e.Name] = e.Value
			}
		}
		for i, a := range args {
			args[i] = podVar.ReplaceAllStringFunc(a, func(m string) string {
				if v, ok := env[m[2:len(m)-1]]; ok {
					return v
				}
				return m
			})
		}
		return args, true
	}
	return nil, false
}

// proxyNameFinding judges kube-proxy's node name (FM-15): kube-proxy watches its own Node
// and the endpoints on it by that name; under another name it treats this node's pods as
// remote and deletes their vNICs and HNS endpoints (kubernetes/website windows.md). ok is
// false when kube-proxy's name is the node's, or not in the evidence.
func (c C) proxyNameFinding(node, hostname string, facts []string) (Finding, bool) {
	kp := c.componentRunsAs(kubeProxyComponent(), hostname)
	if kp.name == "" || kp.name == strings.ToLower(node) {
		return Finding{}, false
	}
	given := "no --hostname-override, so it uses the lower-cased host name " + hostname
	if kp.override != "" {
		given = "--hostname-override=" + kp.override
	}
	facts = append(facts, "kube-proxy's command line: "+kp.from+": "+given)
	var f Finding
	if kp.override == "" && kp.config != "" {
		// The config file's hostnameOverride (KubeProxyConfiguration) counts when no flag
		// is given (cmd/kube-proxy/app/options.go); the file is not in the evidence.
		f = c.Warn(fmt.Sprintf("kube-proxy runs as %s unless its --config file %s sets hostnameOverride: %s", hostname, kp.config, node), kp.path).
			With(append(facts, "check: Select-String -Path "+kp.config+" -Pattern hostnameOverride")...)
	} else {
		f = c.Fail(fmt.Sprintf("kube-proxy runs as node %s, not %s: %s", kp.name, node, given), kp.path).
			With(append(facts, "kube-proxy looks up its own Node and its endpoints by that name: under another name it treats this node's pods as remote and removes their vNICs and HNS endpoints")...)
	}
	return f.WithFix(c.proxyOverrideFix(node)), true
}

// proxyOverrideFix is where each layout sets kube-proxy's --hostname-override.
func (c C) proxyOverrideFix(node string) *Fix {
	fix := &Fix{ID: "kube-proxy-hostname-override", Title: "Run kube-proxy with --hostname-override=" + node, Kind: Manual, Verify: c.id,
		Impact: "Service traffic on this node pauses while kube-proxy restarts (seconds)",
		Notes: []string{
			"microsoft/SDN start-kubeproxy.ps1 and register-svc.ps1 pass --hostname-override=$(hostname): right only while the node name is the host name",
			"sig-windows-tools HostProcess kube-proxy: its start.ps1 passes --hostname-override=$env:NODE_NAME, with NODE_NAME from the fieldRef spec.nodeName in kube-proxy.yml; keep that env in the DaemonSet",
			"EKS: Start-EKSBootstrap.ps1 registers kube-proxy with --hostname-override=<EC2 private DNS name>, the kubelet's",
		}}
	svcs, _ := optional(c, evidence.WindowsServices)
	if s, ok := decode.FindService(svcs, kubeProxyComponent().services...); ok && s.AppParameters != "" {
		params := withFlag(s.AppParameters, "hostname-override", node)
		fix.Commands = []string{
			fmt.Sprintf("& %s set %s AppParameters %s   # nssm keeps it in HKLM:\\SYSTEM\\CurrentControlSet\\Services\\%s\\Parameters", psQuote(s.PathName), psQuote(s.Name), psQuote(params), s.Name),
			"Restart-Service -Name " + psQuote(s.Name) + " -Force",
		}
		return fix
	}
	if d, ok := c.componentPod(kubeProxyComponent()); ok {
		fix.Commands = []string{
			"kubectl -n " + d.pod.Namespace + " edit daemonset " + strings.TrimPrefix(d.ds, d.pod.Namespace+"/") + "   # env NODE_NAME from fieldRef spec.nodeName, and --hostname-override=$(NODE_NAME) in its args or start script",
			"kubectl -n " + d.pod.Namespace + " delete pod " + d.pod.Name + "   # the DaemonSet recreates it",
		}
		return fix
	}
	fix.Commands = []string{"add --hostname-override=" + node + " to kube-proxy's command line (its start script or service), then restart kube-proxy"}
	return fix
}

// withFlag sets --name=value in an argument string, replacing the flag if it is there.
func withFlag(args, name, value string) string {
	re := regexp.MustCompile(`--` + regexp.QuoteMeta(name) + `(=|\s+)("[^"]*"|\S+)`)
	if re.MatchString(args) {
		return re.ReplaceAllLiteralString(args, "--"+name+"="+value)
	}
	return strings.TrimSpace(args + " --" + name + "=" + value)
}

// kubeletNameFinding: the kubelet given an explicit --hostname-override that is not this
// node's name registers (or heartbeats) another Node.
func (c C) kubeletNameFinding(node, hostname string, facts []string) (Finding, bool) {
	kl := c.componentRunsAs(kubeletComponent(), hostname)
	if kl.override == "" || kl.name == strings.ToLower(node) {
		return Finding{}, false
	}
	return c.Fail(fmt.Sprintf("the kubelet runs with --hostname-override=%s, not the node name %s", kl.override, node), kl.path).
		With(append(facts, "kubelet's command line: "+kl.from,
			"the kubelet registers and reports status as "+kl.name+": this Node gets no heartbeats from this host")...).
		WithFix(&Fix{ID: "kubelet-hostname-override", Title: "Run the kubelet with --hostname-override=" + node, Kind: Manual, Verify: c.id,
			Commands: []string{"set --hostname-override=" + node + " in the kubelet's arguments (nssm get kubelet AppParameters, kubeadm-flags.env, or the start script)", "Restart-Service kubelet"},
			Notes:    []string{"kube-proxy must use the same name (kubernetes/website windows.md)"}}), true
}
