package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// component is one piece of the node stack as services or processes may carry it.
type component struct {
	label      string   // "kubelet"
	services   []string // service names installers use
	processes  []string // process image names
	containers []string // container names when a DaemonSet pod runs it (supervisor.go)
}

func kubeletComponent() component {
	return component{"kubelet", []string{"kubelet"}, []string{"kubelet.exe"}, nil}
}

func kubeProxyComponent() component {
	// The HostProcess DaemonSets of sig-windows-tools, Calico and Antrea all name the
	// container kube-proxy (hostprocess/flannel/kube-proxy/kube-proxy.yml).
	return component{"kube-proxy", []string{"kube-proxy", "kubeproxy"}, []string{"kube-proxy.exe"}, []string{"kube-proxy"}}
}

func runtimeComponent() component {
	return component{"container runtime", []string{"containerd", "docker"}, []string{"containerd.exe", "dockerd.exe"}, nil}
}

// state is what the node says about one component.
type state struct {
	svc     decode.Service
	hasSvc  bool
	proc    decode.Process
	hasProc bool
}

func (c component) state(svcs []decode.Service, procs []decode.Process) state {
	var st state
	st.svc, st.hasSvc = decode.FindService(svcs, c.services...)
	st.proc, st.hasProc = decode.FindProcess(procs, c.processes...)
	return st
}

// service checks that a component runs: as a service, or as a foreground process.
type service struct {
	id   string
	comp component
}

// kubeletService, kubeProxyService and runtimeService are SVC-KUBELET, SVC-KUBEPROXY and
// SVC-RUNTIME.
func kubeletService() service   { return service{"SVC-KUBELET", kubeletComponent()} }
func kubeProxyService() service { return service{"SVC-KUBEPROXY", kubeProxyComponent()} }
func runtimeService() service   { return service{"SVC-RUNTIME", runtimeComponent()} }

func (p service) Spec() Spec {
	fm := []string{"FM-08"}
	if p.comp.label == "container runtime" {
		fm = append(fm, "FM-23")
	}
	reads := []evidence.Ref{evidence.WindowsServices, evidence.Processes, evidence.ClusterNodes} // nodes: onAKS, onRKE2
	if len(p.comp.containers) > 0 {
		// its DaemonSet pod (supervisor.go); Antrea's agent and CNI config in its place
		reads = append(reads, evidence.Pods, evidence.CNIConfig)
	}
	return Spec{ID: p.id, Title: p.comp.label + " is running", FM: fm, Reads: reads, Layouts: allLayouts()}
}

func (p service) Check(c C) Finding {
	svcs, svcPath, bad := need(c, evidence.WindowsServices)
	if bad != nil {
		return *bad
	}
	procs, procPath, bad := need(c, evidence.Processes)
	if _, found := decode.FindService(svcs, p.comp.services...); bad != nil && !found {
		return *bad
	}
	// A pasted sc query or Get-Service shows the service: its state judges without the
	// process list, which only tells a foreground process from nothing.
	st := p.comp.state(svcs, procs)
	if !st.hasSvc {
		if f, ok := c.podJudgement(p.id, p.comp, st); ok {
			return f.Citing(svcPath, procPath)
		}
		// rke2 and Antrea (supervisor_layouts.go): a supervisor the sweep does not list,
		// or an agent that does kube-proxy's work.
		if f, ok := c.rke2Judgement(p.comp, st, procs); ok {
			return f.Citing(svcPath, procPath)
		}
		if f, ok := c.antreaJudgement(p.comp, st); ok {
			return f.Citing(svcPath, procPath)
		}
	}
	who, startedBy, aks := c.manualByDesign(svcs)
	var f Finding
	switch {
	case aks && st.hasSvc && st.svc.Status == "Running" && st.svc.StartType == "Manual":
		f = c.Pass(fmt.Sprintf("%s service %s is running (Manual, as %s registers it)", p.comp.label, st.svc.Name, who)).With(startedBy)
	case st.hasSvc && st.svc.Status == "Running" && st.svc.StartType == "":
		// A pasted Get-Service table without the column: the state judges, the start
		// type stays unknown (SVC-REBOOT asks for it).
		f = c.Pass(fmt.Sprintf("%s service %s is running (its StartType was not in the evidence)", p.comp.label, st.svc.Name)).
			With("re-collect the start type with: Get-Service " + st.svc.Name + " | Select-Object Name, Status, StartType")
	case st.hasSvc && st.svc.Status == "Running" && st.svc.StartType == "Manual" && (c.layoutUnknown() || st.svc.PathName == ""):
		// AKS and OpenShift's WMCO start their Manual services themselves; a pasted table
		// shows neither the node's providerID nor the service's binary path that tell them.
		f = c.Skip(fmt.Sprintf("%s service %s is running and starts Manual: whether its layout starts it (AKS, OpenShift WMCO) is not known from a pasted table",
			p.comp.label, st.svc.Name)).With("re-collect with: kubectl get node "+c.node+" -o json", "and: Get-CimInstance Win32_Service -Filter \"Name='"+st.svc.Name+"'\" | Select-Object Name, State, StartMode, PathName")
	case st.hasSvc && st.svc.Status == "Running" && st.svc.StartType != "Automatic":
		f = c.Warn(fmt.Sprintf("%s service %s is running but starts %s: it will not come back after a reboot",
			p.comp.label, st.svc.Name, st.svc.StartType)).With("expected: StartType Automatic", "actual: StartType "+st.svc.StartType)
		f.Fix = autostartFix(p.id, []string{st.svc.Name})
	case st.hasSvc && st.svc.Status == "Running":
		f = c.Pass(fmt.Sprintf("%s service %s is running (Automatic)", p.comp.label, st.svc.Name))
	case st.hasProc:
		f = c.Pass(fmt.Sprintf("%s runs as a foreground process (pid %d), not as a service", p.comp.label, st.proc.ProcessId)).With("the SDN start scripts run it this way; see SVC-REBOOT for what happens after a reboot")
	case st.hasSvc && strings.EqualFold(st.svc.Status, "Paused"):
		// Paused is a state only a pause request puts a service in (Suspend-Service, sc
		// pause): it holds its process but does no work; Start-Service does not resume it.
		f = c.Fail(fmt.Sprintf("%s service %s is paused", p.comp.label, st.svc.Name)).With("expected: Running",
			fmt.Sprintf("actual: Paused, StartType %s (services.json decides it: a paused service's process exists but does nothing)", st.svc.StartType))
		f.Fix = &Fix{ID: "resume-service", Title: "Resume " + st.svc.Name, Kind: Manual, Verify: p.id,
			Commands: []string{"Resume-Service -Name " + psQuote(st.svc.Name) + "   # sc.exe continue " + st.svc.Name}}
	case st.hasSvc:
		f = c.Fail(fmt.Sprintf("%s service %s is %s", p.comp.label, st.svc.Name, strings.ToLower(st.svc.Status))).With("expected: Running",
			fmt.Sprintf("actual: %s, StartType %s", st.svc.Status, st.svc.StartType))
		if aks && st.svc.StartType == "Manual" {
			f = f.With(startedBy, "do not switch it to Automatic: "+who+" starts it in order, after its own preparation")
			f.Fix = startFix(p.id, []string{st.svc.Name})
		} else if st.svc.StartType == "Automatic" || st.svc.StartType == "" {
			// Unknown start type (a pasted table without it): starting it is right either way.
			f = f.With("it is set to start automatically, so it stopped or crashed after starting: read its log (kubelet.log / kube-proxy.log evidence)")
			f.Fix = startFix(p.id, []string{st.svc.Name})
		} else {
			f.Fix = autostartFix(p.id, []string{st.svc.Name})
		}
	default:
		f = c.Fail(fmt.Sprintf("%s is not running: no %s service and no %s process", p.comp.label,
			strings.Join(p.comp.services, "/"), strings.Join(p.comp.processes, "/"))).With("on SDN-script nodes run C:\\k\\start.ps1 again; elsewhere register the service (nssm install or sc.exe create)")
		if len(p.comp.containers) > 0 {
			f = f.With("kubeadm, Calico and Antrea layouts run it as a HostProcess DaemonSet pod instead, and no such pod is on this node: kubectl get ds -A -o wide | findstr " + p.comp.containers[0] + " (is its nodeSelector this node's?)")
		}
		f.Fix = registerFix(p.id, p.comp)
	}
	if bad != nil {
		// processes.json was not there: the service's state decided, and only it is cited.
		return f.Citing(svcPath)
	}
	return f.Citing(svcPath, procPath)
}

func startFix(verify string, names []string) *Fix {
	return &Fix{
		ID: "start-service", Title: "Start " + strings.Join(names, ", "), Kind: NodeScript,
		Action: "fix-start-service", Params: map[string]any{"Name": names},
		Commands: []string{"Start-Service -Name " + psList(names)},
		Verify:   verify,
		Precheck: strings.Join(names, ", ") + " not running",
	}
}

func autostartFix(verify string, names []string) *Fix {
	cmds := []string{}
	for _, n := range names {
		cmds = append(cmds,
			"Set-Service -Name "+psQuote(n)+" -StartupType Automatic",
			"sc.exe failure "+n+" reset= 0 actions= restart/10000/restart/10000/restart/10000",
			"Start-Service -Name "+psQuote(n))
	}
	return &Fix{
		ID: "service-autostart", Title: "Make " + strings.Join(names, ", ") + " start automatically and restart on failure, then start",
		Kind: NodeScript, Action: "fix-service-autostart", Params: map[string]any{"Name": names},
		Commands: cmds, Verify: verify,
		Precheck: strings.Join(names, ", ") + " not set to start automatically",
	}
}

func registerFix(verify string, c component) *Fix {
	svc := c.services[0]
	return &Fix{
		ID: "register-service", Title: "Register " + c.label + " as a Windows service", Kind: Manual, Verify: verify,
		Commands: []string{
			"nssm install " + svc + " C:\\k\\" + c.processes[0] + " <the arguments it ran with>",
			"nssm set " + svc + " Start SERVICE_AUTO_START",
			"Start-Service " + svc,
		},
		Notes: []string{"sig-windows-tools PrepareNode.ps1 registers kubelet this way; the SDN register-svc.ps1 does the same for kube-proxy and flanneld"},
	}
}

// psQuote quotes a value for display as a PowerShell single-quoted string. Fix scripts
// receive values as data; this is only for the preview.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func psList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = psQuote(n)
	}
	return strings.Join(q, ", ")
}
