# wts:may-hang: the Defender cmdlets ask the MpWmi CIM provider, which waits on the WinDefend service and can take seconds while a scan or a signature update runs.
# Microsoft Defender and the container settings that interfere with Windows containers (FM-30).
# Get-MpComputerStatus: AMServiceEnabled, AMRunningMode, RealTimeProtectionEnabled
# (MSFT_MpComputerStatus); Get-MpPreference: ExclusionPath, ExclusionProcess (MSFT_MpPreference);
# Get-MpThreat filtered as node-problem-detector's windows_defender_problem.ps1 does
# (WindowsDefenderThreatsDetected): IsActive or DidThreatExecute, with Resources (MSFT_MpThreat).
# The registry values MicrosoftDocs/Virtualization-Documentation Debug-ContainerHost.ps1 tests:
# VSmbDisableOplocks and any zz* value under ...\Virtualization\Containers, and BitLocker's
# FDVDenyWriteAccess policy under HKLM:\SYSTEM\CurrentControlSet\Policies\Microsoft\FVE.
# Where the Defender module is missing (Server Core without Defender) or Defender does not
# answer (off, or replaced by another antivirus) DefenderError says so; the registry is read anyway.
$out = [ordered]@{ Defender = $false; DefenderError = ''; AMServiceEnabled = $null; AMRunningMode = ''
    RealTimeProtectionEnabled = $null; ExclusionPath = @(); ExclusionProcess = @(); Threats = @()
    VSmbDisableOplocks = $null; ZZValues = @(); FDVDenyWriteAccess = $null }
if (-not (Get-Command Get-MpComputerStatus -ErrorAction SilentlyContinue)) {
    $out.DefenderError = 'the Defender module is not on this node (no Get-MpComputerStatus)'
} else {
    try {
        $st = Get-MpComputerStatus -ErrorAction Stop
        $out.Defender = $true
        $out.AMServiceEnabled = [bool]$st.AMServiceEnabled
        $out.AMRunningMode = [string]$st.AMRunningMode
        $out.RealTimeProtectionEnabled = [bool]$st.RealTimeProtectionEnabled
        $pref = Get-MpPreference -ErrorAction Stop
        $out.ExclusionPath = @($pref.ExclusionPath | ForEach-Object { [string]$_ })
        $out.ExclusionProcess = @($pref.ExclusionProcess | ForEach-Object { [string]$_ })
        $out.Threats = @(Get-MpThreat -ErrorAction Stop | Where-Object { $_.IsActive -or $_.DidThreatExecute } | Select-Object -First 20 | ForEach-Object {
                [pscustomobject]@{ ThreatID = [string]$_.ThreatID; ThreatName = [string]$_.ThreatName; SeverityID = [int]$_.SeverityID
                    IsActive = [bool]$_.IsActive; DidThreatExecute = [bool]$_.DidThreatExecute
                    Resources = @($_.Resources | Select-Object -First 10 | ForEach-Object { [string]$_ }) }
            })
    } catch {
        $out.DefenderError = [string]$_.Exception.Message
    }
}
$c = Get-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Virtualization\Containers' -ErrorAction SilentlyContinue
if ($c) {
    $out.VSmbDisableOplocks = $c.VSmbDisableOplocks
    $out.ZZValues = @($c | Get-Member zz* | ForEach-Object { '{0}={1}' -f $_.Name, $c.($_.Name) })
}
$fve = Get-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Policies\Microsoft\FVE' -Name FDVDenyWriteAccess -ErrorAction SilentlyContinue
if ($fve) { $out.FDVDenyWriteAccess = $fve.FDVDenyWriteAccess }
[pscustomobject]$out | ConvertTo-Json -Depth 3
