package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hostAV (HOST-AV): Microsoft Defender and the container host settings that interfere
// with Windows containers (FM-30), from defender.json.
//
// It fails on what Debug-ContainerHost.ps1 (MicrosoftDocs/Virtualization-Documentation,
// windows-server-container-tools/Debug-ContainerHost @ e2daa67) tests under "Windows
// container settings are correct": "Do not have DisableVSmbOplock set to 1"
// (VSmbDisableOplocks under HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\
// Virtualization\Containers), "Do not have zz values set" (any zz* value there) and "Do not
// have FDVDenyWriteAccess set to 1" (HKLM:\SYSTEM\CurrentControlSet\Policies\Microsoft\FVE:
// BitLocker's deny write access to fixed drives not protected by BitLocker, which the failure catalogue
// FM-30 says "may cause failures in docker load or docker pull"; docker/docs' Windows
// containers troubleshooting (PR #22892): the policy mounts fixed drives without BitLocker,
// the containers' volumes included, read-only, and containers fail with "FSCTL_EXTEND_VOLUME
// \\?\Volume{GUID}: The media is write protected"). It fails on threats
// node-problem-detector reports (config/plugin/windows_defender_problem.ps1,
// WindowsDefenderThreatsDetected: Get-MpThreat | ? { $_.IsActive -or $_.DidThreatExecute })
// whose resources are the runtime's or the kubelet's files: Defender quarantines them; it
// warns on other such threats.
//
// Missing exclusions only make a note: Microsoft's "Anti-virus optimization for Windows
// Containers" (learn.microsoft.com windows-hardware/drivers/ifs) tells antivirus vendors how
// to skip container layers, not administrators what to exclude, and the one exclusion list
// found (Azure/AgentBaker staging/cse/windows/kubernetesfunc.ps1 Update-DefenderPreferences,
// called by kuberneteswindowssetup.ps1) is AKS's own choice, so a node without it is not
// wrong. Third-party antivirus products are invisible here: the probe says so.
type hostAV struct{}

func (hostAV) Spec() Spec {
	return Spec{ID: "HOST-AV", Layouts: allLayouts(), Title: "Defender, BitLocker's write policy and the container registry values do not get in the containers' way",
		FM: []string{"FM-30"}, Reads: []evidence.Ref{evidence.Defender}}
}

// avRuntimeDirs are the folders of the runtimes, the kubelet and the CNI plugins on the
// layouts here (containerd's and Docker's default roots, C:\k of the SDN scripts and AKS,
// sig-windows-tools' C:\etc\cni and C:\opt\cni); avRuntimeExes their executables.
func avRuntimeDirs() []string {
	return []string{`c:\programdata\containerd`, `c:\programdata\docker`, `c:\program files\containerd`, `c:\k\`, `c:\etc\cni`, `c:\opt\cni`}
}

func avRuntimeExes() []string {
	return []string{"kubelet.exe", "kube-proxy.exe", "containerd.exe", "containerd-shim-runhcs-v1.exe", "dockerd.exe", "flanneld.exe"}
}

// agentBakerExclusions are the exclusions AKS's CSE adds for containerd (Update-DefenderPreferences).
func agentBakerExclusions() []string {
	return []string{
		`Add-MpPreference -ExclusionProcess "c:\program files\containerd\containerd.exe"`,
		`Add-MpPreference -ExclusionProcess "c:\program files\containerd\containerd-shim-runhcs-v1.exe"`,
		`Add-MpPreference -ExclusionPath "C:\ProgramData\containerd\root\io.containerd.snapshotter.v1.windows\snapshots"`,
		`Add-MpPreference -ExclusionProcess "c:\k\kubelet.exe"`,
	}
}

func (hostAV) Check(c C) Finding {
	d, path, bad := need(c, evidence.Defender)
	if bad != nil {
		return c.notCollected(path, bad)
	}
	blind := "third-party antivirus products are not seen here: check with `Get-CimInstance -Namespace root\\SecurityCenter2 AntiVirusProduct` where it exists (client SKUs) or the product's own console"
	var fails, warns, notes []string
	var cmds []string
	if d.OplocksDisabled() {
		fails = append(fails, fmt.Sprintf("VSmbDisableOplocks is %s (Debug-ContainerHost: \"Do not have DisableVSmbOplock set to 1\")", d.VSmbDisableOplocks))
		cmds = append(cmds, `Remove-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Virtualization\Containers' -Name VSmbDisableOplocks`)
	}
	for _, zz := range d.ZZValues {
		name, _, _ := strings.Cut(zz, "=")
		fails = append(fails, fmt.Sprintf("container setting %s (Debug-ContainerHost: \"Do not have zz values set\")", zz))
		cmds = append(cmds, fmt.Sprintf(`Remove-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Virtualization\Containers' -Name %s`, psQuote(name)))
	}
	if d.DenyWrite() {
		fails = append(fails, fmt.Sprintf("BitLocker policy FDVDenyWriteAccess is %s (Debug-ContainerHost: \"Do not have FDVDenyWriteAccess set to 1\"): writes to fixed drives without BitLocker are denied, the containers' volumes included: pulls and loads may fail (failure mode FM-30), containers with \"The media is write protected\" (docker/docs troubleshooting)", d.FDVDenyWriteAccess))
		cmds = append(cmds, "turn off the Group Policy \"Deny write access to fixed drives not protected by BitLocker\" (Computer Configuration > Administrative Templates > Windows Components > BitLocker Drive Encryption > Fixed Data Drives), then gpupdate /force",
			`Set-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Policies\Microsoft\FVE' -Name FDVDenyWriteAccess -Value 0   # only where no GPO sets it; a GPO writes it back`)
	}
	for _, t := range d.Threats {
		if !t.Active() {
			continue
		}
		what := fmt.Sprintf("Defender threat %s (ID %s, active %s, executed %s) on %s", t.ThreatName, t.ThreatID, t.IsActive, t.DidThreatExecute, strings.Join(t.Resources, "; "))
		if r := runtimeResource(t.Resources); r != "" {
			fails = append(fails, what+": "+r+" is the runtime's or the kubelet's, and Defender quarantines it")
			cmds = append(cmds, fmt.Sprintf("Get-MpThreatDetection -ThreatID %s   # what and when; if it is a false positive, restore it: & \"$env:ProgramFiles\\Windows Defender\\MpCmdRun.exe\" -Restore -Name %s", t.ThreatID, psQuote(string(t.ThreatName))))
		} else {
			warns = append(warns, what)
		}
	}
	switch {
	case !d.Answered():
		notes = append(notes, "Defender did not answer: "+string(d.DefenderError)+" (Server Core without Defender, Defender turned off, or another antivirus)")
	case d.Passive():
		notes = append(notes, "Defender runs in passive mode ("+string(d.AMRunningMode)+"): another antivirus is the primary one")
	case d.RealTime():
		switch {
		case d.ExclusionsHidden():
			notes = append(notes, "real-time protection is on; Get-MpPreference did not show the exclusions to this account")
		case !excludesRuntime(d):
			notes = append(notes, "real-time protection is on and none of the runtime's folders or processes is excluded; no Microsoft source found asks container hosts for exclusions, so this is not judged. AKS's CSE adds these (AgentBaker Update-DefenderPreferences): "+strings.Join(agentBakerExclusions(), "; "))
		default:
			notes = append(notes, "real-time protection is on; exclusions: "+strings.Join(append(append([]string(nil), d.ExclusionPath...), d.ExclusionProcess...), ", "))
		}
	default:
		notes = append(notes, "Defender's real-time protection is off")
	}
	notes = append(notes, blind)
	switch {
	case len(fails) > 0:
		return c.Fail(fails[0], path).With(fails[1:]...).With(warns...).With(notes...).
			WithFix(&Fix{ID: "host-av-settings", Title: "Remove the settings that break containers", Kind: Manual, Verify: c.id, Commands: cmds,
				Notes: []string{"restart the runtime (Restart-Service containerd, or docker) after changing the Containers values",
					"for scanning the runtime's files, exclusions as AKS adds them: " + strings.Join(agentBakerExclusions(), "; ")}})
	case len(warns) > 0:
		return c.Warn(fmt.Sprintf("Defender reports %d active or executed threat(s) outside the runtime's files", len(warns)), path).
			With(warns...).With(notes...).With("see Get-MpThreatDetection for what Defender did; it is no container problem unless the files are the workloads'")
	}
	return c.Pass("no container setting Debug-ContainerHost flags and no active Defender threat on the runtime's files", path).With(notes...)
}

// runtimeResource is the first resource that lies under a runtime folder or names one of
// the runtime's executables, "" if none.
func runtimeResource(rs []string) string {
	for _, r := range rs {
		p := strings.ToLower(decode.ResourcePath(r))
		for _, d := range avRuntimeDirs() {
			if strings.HasPrefix(p, d) {
				return decode.ResourcePath(r)
			}
		}
		for _, e := range avRuntimeExes() {
			if strings.HasSuffix(p, `\`+e) || strings.Contains(p, `\`+e+",") || p == e {
				return decode.ResourcePath(r)
			}
		}
	}
	return ""
}

// excludesRuntime says whether an exclusion covers a runtime folder or executable.
func excludesRuntime(d decode.Defender) bool {
	for _, e := range append(append([]string(nil), d.ExclusionPath...), d.ExclusionProcess...) {
		if runtimeResource([]string{e}) != "" {
			return true
		}
		l := strings.ToLower(strings.TrimRight(e, `\`))
		for _, dir := range avRuntimeDirs() {
			if strings.HasPrefix(dir, l+`\`) || strings.TrimRight(dir, `\`) == l {
				return true
			}
		}
	}
	return false
}
