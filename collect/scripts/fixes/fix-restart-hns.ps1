param([string]$KubeProxy)
# microsoft/SDN hnsautomitigator2019.yaml's AutoMitigate, bounded: restart HNS; a
# deadlocked HNS may not stop, and then its process is ended (the mitigator's
# `taskkill /pid <hns> /f`), but only while that svchost.exe holds HNS alone, since ending
# a shared one would stop its other services too. Then kube-proxy is restarted so it
# reprograms its load balancers (the mitigator's `Restart-Service -f kubeproxy`).
$svc = Get-CimInstance -ClassName Win32_Service -Filter "Name='hns'"
if (-not $svc) { throw 'the hns service is not installed' }
$hnsPid = [int]$svc.ProcessId
try {
    Start-WtsService -Name hns -Restart -TimeoutSec 60
} catch {
    # Only a stop that hangs is ended by force, and only in the process HNS had when the
    # fix began: HNS must still be StopPending (ServiceControllerStatus) and its service
    # still own that process ID. An HNS that stopped but did not start has no process
    # (ProcessId 0), and the old ID may by now belong to another program.
    $now = Get-CimInstance -ClassName Win32_Service -Filter "Name='hns'"
    $status = (Get-Service -Name hns).Status
    if ($hnsPid -le 0 -or $status -ne 'StopPending' -or [int]$now.ProcessId -ne $hnsPid) { throw }
    $others = @(Get-CimInstance -ClassName Win32_Service -Filter "ProcessId=$hnsPid" | Where-Object { $_.Name -ne 'hns' })
    if ($others.Count -gt 0) { throw }
    "hns did not stop within 60 s: ending its process $hnsPid"
    Stop-Process -Id $hnsPid -Force -ErrorAction Stop
    # SCM notices the process's end and marks the service Stopped; wait for that, bounded,
    # so the start below finds it Stopped rather than StopPending.
    try { (Get-Service -Name hns).WaitForStatus('Stopped', [TimeSpan]::FromSeconds(30)) } catch { throw "hns is still $((Get-Service -Name hns).Status) after its process ended" }
    Start-WtsService -Name hns
}
$names = @('hns')
if ($KubeProxy) {
    Start-WtsService -Name $KubeProxy -Restart
    $names += $KubeProxy
}
Get-Service -Name $names | Select-Object 'Name', 'Status'
