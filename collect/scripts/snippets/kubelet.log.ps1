param([int]$Tail = 200)
$logs = @(Get-ChildItem 'C:\k\kubelet.exe.*.log.INFO.*', 'C:\k\kubelet*.log', 'C:\var\log\kubelet\*.log', 'C:\etc\kubernetes\logs\kubelet*.log' -ErrorAction SilentlyContinue |
    Sort-Object LastWriteTime)
if (-not $logs.Count) { throw 'no kubelet log found' }
Get-Content -LiteralPath $logs[-1].FullName -Tail $Tail
