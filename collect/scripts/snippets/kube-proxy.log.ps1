param([int]$Tail = 200)
$logs = @(Get-ChildItem 'C:\k\kube-proxy.exe.*.log.INFO.*', 'C:\k\kubeproxy.log', 'C:\k\kube-proxy*.log', 'C:\var\log\kube-proxy\*.log', 'C:\etc\kubernetes\logs\kube-proxy*.log' -ErrorAction SilentlyContinue |
    Sort-Object LastWriteTime)
if (-not $logs.Count) { throw 'no kube-proxy log found' }
Get-Content -LiteralPath $logs[-1].FullName -Tail $Tail
