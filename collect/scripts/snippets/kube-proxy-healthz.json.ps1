# wts:may-hang: the request waits for kube-proxy's healthz server (bounded by -TimeoutSec).
# kube-proxy serves /healthz on --healthz-bind-address (its config file's
# healthzBindAddress; default 0.0.0.0:10256): 200 when its last sync is recent, 503
# otherwise. A wildcard address is asked on loopback. Invoke-WebRequest -UseBasicParsing
# works without Internet Explorer's engine (Server Core) and -TimeoutSec is in PS 5.1; a
# non-2xx answer throws, and its status is on the exception's Response.
$p = Get-CimInstance Win32_Process -Filter "Name='kube-proxy.exe'" | Select-Object -First 1
if (-not $p) { throw 'kube-proxy is not running' }
$cmd = [string]$p.CommandLine
$addr, $from = '0.0.0.0:10256', 'default'
$m = [regex]::Match($cmd, '--healthz-bind-address[= ]"?([^"\s]+)')
if ($m.Success) {
    $addr, $from = $m.Groups[1].Value, '--healthz-bind-address'
} else {
    $c = [regex]::Match($cmd, '--config[= ]"?([^"\s]+)')
    if ($c.Success -and (Test-Path -LiteralPath $c.Groups[1].Value)) {
        $h = Select-String -LiteralPath $c.Groups[1].Value -Pattern '^\s*"?healthzBindAddress"?\s*:\s*"?([^"\s,]+)' | Select-Object -First 1
        if ($h) { $addr, $from = $h.Matches[0].Groups[1].Value, 'config' }
    }
}
$hostPart, $port = $addr, '10256'
$i = $addr.LastIndexOf(':')
if ($i -ge 0) { $hostPart, $port = $addr.Substring(0, $i), $addr.Substring($i + 1) }
if ($hostPart -in '', '0.0.0.0', '::', '[::]') { $hostPart = '127.0.0.1' }
$url = "http://${hostPart}:${port}/healthz"
$out = [ordered]@{ BindAddress = $addr; From = $from; Url = $url; ProcessId = $p.ProcessId; StatusCode = 0; Content = ''; Error = '' }
try {
    $r = Invoke-WebRequest -Uri $url -UseBasicParsing -TimeoutSec 3 -ErrorAction Stop
    $out.StatusCode, $out.Content = [int]$r.StatusCode, [string]$r.Content
} catch {
    $out.Error = $_.Exception.Message
    $resp = $_.Exception.Response
    if ($resp) { $out.StatusCode = [int]$resp.StatusCode }
}
[pscustomobject]$out | ConvertTo-Json -Depth 3
