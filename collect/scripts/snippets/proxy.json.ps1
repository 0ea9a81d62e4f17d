# The proxy settings the node's Go programs see. containerd, dockerd and the kubelet read
# only HTTP_PROXY, HTTPS_PROXY and NO_PROXY from their environment (Go's
# net/http.ProxyFromEnvironment), never WinHTTP's proxy; a service's environment is the
# machine-level variables plus its own Environment registry value (REG_MULTI_SZ of
# NAME=value), which is where the Kubernetes and Microsoft docs put the runtime's proxy
# ([Environment]::SetEnvironmentVariable(..., 'Machine'), then restart the runtime).
# Windows variable names are case-insensitive, so HTTP_PROXY and http_proxy are one
# machine-level variable; a service's Environment may still list both spellings and both
# are kept. The kubelet's entry is read too: NO_PROXY matters most to its API traffic.
# Userinfo in a proxy URL (http://user:password@proxy) is cut here, on the node:
# only "***REDACTED***@" (the redactor's own marker) leaves it.
$names = 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'
function Hide([string]$v) { $v -replace '://[^/@\s]*@', '://***REDACTED***@' }
function Scope([string]$target) {
    $o = [ordered]@{}
    foreach ($n in $names) {
        $v = [Environment]::GetEnvironmentVariable($n, $target)
        if ($v) { $o[$n] = Hide $v }
    }
    $o
}
$services = @(foreach ($s in 'containerd', 'docker', 'kubelet') {
        $key = "HKLM:\SYSTEM\CurrentControlSet\Services\$s"
        if (Test-Path $key) {
            $e = @((Get-ItemProperty -Path $key -Name Environment -ErrorAction SilentlyContinue).Environment) |
                Where-Object { $_ -match '^(HTTPS?|NO)_PROXY=' } | ForEach-Object { Hide $_ }
            [pscustomobject]@{ Name = $s; Environment = @($e) }
        }
    })
# WinHTTP's proxy (netsh winhttp set proxy), read from its registry value rather than
# netsh's localized text: little-endian DWORDs version, counter, flags (bit 2 set: a
# proxy), then the proxy string's length and ASCII text, then the bypass list's
# ("Use Group Policy to apply WinHTTP proxy settings", learn.microsoft.com: direct access
# reads 1800000000000000010000000000000000000000).
$winhttp, $bypass = '', ''
$b = (Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Internet Settings\Connections' -Name WinHttpSettings -ErrorAction SilentlyContinue).WinHttpSettings
if ($b -and $b.Length -ge 16 -and ($b[8] -band 2)) {
    $n = [BitConverter]::ToInt32($b, 12)
    if ($n -gt 0 -and 16 + $n -le $b.Length) { $winhttp = Hide ([Text.Encoding]::ASCII.GetString($b, 16, $n)) }
    if (20 + $n -le $b.Length) {
        $m = [BitConverter]::ToInt32($b, 16 + $n)
        if ($m -gt 0 -and 20 + $n + $m -le $b.Length) { $bypass = [Text.Encoding]::ASCII.GetString($b, 20 + $n, $m) }
    }
}
# The API server the kubelet talks to: the server line of its --kubeconfig, so NO_PROXY can
# be checked against it (kubeadm's preflight HTTPProxy check does the same on Linux).
$api = ''
$kubelet = @(Get-CimInstance Win32_Process -Filter "Name='kubelet.exe'" -ErrorAction SilentlyContinue)[0]
if ($kubelet -and $kubelet.CommandLine -match '--kubeconfig[= ]+"?([^" ]+)') {
    $kc = $Matches[1]
    if (Test-Path -LiteralPath $kc) {
        $line = Select-String -LiteralPath $kc -Pattern '^\s*server:\s*(\S+)' | Select-Object -First 1
        if ($line) { $api = Hide $line.Matches[0].Groups[1].Value }
    }
}
[pscustomobject]@{
    Machine       = Scope 'Machine'
    User          = Scope 'User'
    Services      = $services
    WinHTTPProxy  = $winhttp
    WinHTTPBypass = $bypass
    APIServer     = $api
} | ConvertTo-Json -Depth 4
