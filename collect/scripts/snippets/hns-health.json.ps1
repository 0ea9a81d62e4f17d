# The Host Network Service's process: its thread and handle counts, the deadlock sign
# microsoft/SDN reads. networkhealth.ps1 (HNSPotentialDeadlock) and hnsautomitigator2019.yaml
# both take the process of Win32_Service 'hns' and count (Get-Process -Id).Threads:
# networkhealth fails above 200, hnsautomitigator probes further from 200 and restarts HNS
# from 1000. hns runs in a svchost.exe (-k NetSvcs -p); where svchost splitting is off
# (below 3.5 GB of memory, or SvcHostSplitDisable) other services share the process and its
# count, so they are listed (Win32_Service ProcessId), at most 20 names.
$svc = Get-CimInstance -ClassName Win32_Service -Filter "Name='hns'"
if (-not $svc) { throw 'the hns service is not installed' }
$out = [ordered]@{ State = [string]$svc.State; ProcessId = [int]$svc.ProcessId; Threads = 0; Handles = 0; WorkingSetMB = 0; SharedCount = 0; SharedWith = @() }
if ($svc.ProcessId -gt 0) {
    $p = Get-Process -Id $svc.ProcessId -ErrorAction Stop
    $out.Threads = $p.Threads.Count
    $out.Handles = $p.HandleCount
    $out.WorkingSetMB = [int]($p.WorkingSet64 / 1048576)
    $others = @(Get-CimInstance -ClassName Win32_Service -Filter "ProcessId=$([int]$svc.ProcessId)" | Where-Object { $_.Name -ne 'hns' } | ForEach-Object { [string]$_.Name } | Sort-Object)
    $out.SharedCount = $others.Count
    $out.SharedWith = @($others | Select-Object -First 20)
}
[pscustomobject]$out | ConvertTo-Json -Depth 3
