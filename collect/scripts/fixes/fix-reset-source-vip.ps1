param([string[]]$Path, [string]$Service, [string]$Network, [string]$Subnet, [string]$CniBin)
# Removes exactly the stale source VIP files the preview listed (kubernetes/website
# windows.md, Flannel troubleshooting: after a rejoin remove SourceVip.json and
# SourceVipRequest.json), then gets kube-proxy a source VIP in the node's pod subnet.
# A kube-proxy service has its --source-vip in nssm's AppParameters (microsoft/SDN
# register-svc.ps1 reads sourceVip.json once): reserve a new one as GetSourceVip does
# (helper.psm1: host-local with CNI_COMMAND=ADD, the request on stdin), write it there and
# restart the service. A HostProcess kube-proxy's start.ps1 reserves one itself when its
# container restarts (sig-windows-tools hostprocess/flannel/kube-proxy/start.ps1): stop
# the process and the kubelet restarts the container.
foreach ($p in $Path) {
    if (Test-Path -LiteralPath $p) { Remove-Item -LiteralPath $p -Force -ErrorAction Stop; "removed $p" } else { "skipped ${p}: no longer exists" }
}
if (-not $Service) {
    Get-Process -Name 'kube-proxy' -ErrorAction SilentlyContinue | Stop-Process -Force -ErrorAction Stop
    'stopped kube-proxy: its pod reserves a new source VIP when the kubelet restarts it'
    return
}
$key = "HKLM:\SYSTEM\CurrentControlSet\Services\$Service\Parameters"
if (-not (Test-Path -LiteralPath $key)) { throw "service $Service has no nssm Parameters key: set its --source-vip by hand" }
$dir = Split-Path -Parent $Path[0]
$request = Join-Path $dir 'sourceVipRequest.json'
$answer = Join-Path $dir 'sourceVip.json'
"{""cniVersion"": ""0.2.0"", ""name"": ""$Network"", ""ipam"":{""type"":""host-local"",""ranges"":[[{""subnet"":""$Subnet""}]],""dataDir"":""/var/lib/cni/networks""}}" | Out-File -FilePath $request
# host-local refuses a second ADD for a container ID it already holds an address for
# ("<ip> has been allocated to dummy, duplicate allocation is not allowed",
# containernetworking/plugins plugins/ipam/host-local/backend/allocator/allocator.go Get):
# the same subnet keeps the last request's reservation, so it is released first (DEL
# frees every address of that ID and interface, and succeeds when there is none).
$env:CNI_CONTAINERID = 'dummy'
$env:CNI_NETNS = 'dummy'
$env:CNI_IFNAME = 'dummy'
$env:CNI_PATH = $CniBin
$hostLocal = Join-Path $CniBin 'host-local.exe'
try {
    $env:CNI_COMMAND = 'DEL'
    $released = (Get-Content -LiteralPath $request | & $hostLocal) -join "`n"
    if ($LASTEXITCODE) { throw "host-local DEL exited ${LASTEXITCODE}: $released" }
    $env:CNI_COMMAND = 'ADD'
    Get-Content -LiteralPath $request | & $hostLocal | Out-File -FilePath $answer
    if ($LASTEXITCODE) { throw "host-local ADD exited ${LASTEXITCODE}: $(Read-WtsText $answer)" }
} finally {
    foreach ($v in 'CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH') { Remove-Item -Path "env:$v" -ErrorAction SilentlyContinue }
}
$ip = (Read-WtsText $answer | ConvertFrom-Json).ip4.ip
if (-not $ip) { throw "host-local reserved no address: $(Read-WtsText $answer)" }
$vip = $ip.Split('/')[0]
$params = (Get-ItemProperty -LiteralPath $key -Name AppParameters -ErrorAction Stop).AppParameters
if ($params -match '--source-vip[= ]\S+') { $params = $params -replace '--source-vip[= ]\S+', "--source-vip=$vip" } else { $params = "$params --source-vip=$vip" }
Set-ItemProperty -LiteralPath $key -Name AppParameters -Value $params
Start-WtsService -Name $Service -Restart
"kube-proxy now uses --source-vip=$vip ($Service AppParameters)"
