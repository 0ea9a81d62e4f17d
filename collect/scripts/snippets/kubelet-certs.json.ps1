# The kubelet's certificates: the client certificate it authenticates to the API server
# with, and the serving certificate the API server meets on port 10250, each with its
# validity, and the rotation settings that renew them. Only the first CERTIFICATE block of
# a file is decoded (the leaf: client-go's certificate store writes it first); the private
# key that kubelet-client-current.pem also holds is never parsed nor printed.
# Where they are (kubernetes/kubernetes): the kubelet's --cert-dir, default
# /var/lib/kubelet/pki (cmd/kubelet/app/options/options.go; a path without a drive is on
# the system drive), holds kubelet-client-current.pem and, with serverTLSBootstrap,
# kubelet-server-current.pem (pkg/kubelet/certificate: client-go util/certificate file
# stores "kubelet-client" and "kubelet-server"), else kubelet.crt, the self-signed serving
# certificate the kubelet writes when no tlsCertFile is set (cmd/kubelet/app/server.go
# InitializeTLS). A kubelet without rotation authenticates with its --kubeconfig's
# client-certificate (a path) or client-certificate-data (embedded; microsoft/SDN's
# C:\k\config). Bounded: one process query by name, at most two config files and five
# certificate files, each read by name (no folder is listed).
$proc = @(Get-CimInstance -ClassName Win32_Process -Filter "Name='kubelet.exe'")
$cmd = ''
if ($proc.Count -gt 0) {
    $cmd = [string]$proc[0].CommandLine
} else {
    # A stopped kubelet: its service's command line (nssm keeps the arguments in
    # AppParameters under the service's Parameters key), so its folders are still found.
    $svc = Get-CimInstance -ClassName Win32_Service -Filter "Name='kubelet'"
    if ($svc) {
        $par = Get-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Services\kubelet\Parameters' -ErrorAction SilentlyContinue
        $cmd = [string]$svc.PathName + ' ' + [string]$par.AppParameters
    }
}
function Get-WtsFlag([string]$Name, [switch]$Bool) {
    # Flags as `--name=value` or `--name value`, quoted or not; a flag given twice keeps its
    # last value, as pflag does. A boolean flag alone means true (pflag NoOptDefVal).
    if ($Bool) { $re = "--$Name(?:=([^ \t""]*))?(?=[ \t""]|$)" } else { $re = "--$Name(?:=|[ \t]+)(?:""([^""]*)""|([^ \t""]*))" }
    $ms = [regex]::Matches($cmd, $re)
    if ($ms.Count -eq 0) { return $null }
    $m = $ms[$ms.Count - 1]
    if ($Bool) { if ($m.Groups[1].Success -and $m.Groups[1].Value) { return $m.Groups[1].Value.ToLower() } else { return 'true' } }
    $m.Groups[1].Value + $m.Groups[2].Value
}
function Resolve-WtsPath([string]$Path, [string]$Base) {
    $p = $Path.Trim('"', "'") -replace '/', '\'
    if ($p -match '^\\' -and $p -notmatch '^\\\\') { return $env:SystemDrive + $p }
    if ($Base -and -not [System.IO.Path]::IsPathRooted($p)) { return Join-Path $Base $p }
    $p
}
function Get-WtsSetting([string]$Text, [string]$Key) {
    # A top-level KubeletConfiguration field, in YAML or JSON.
    $m = [regex]::Match($Text, "(?m)^[ \t]*""?$Key""?[ \t]*:[ \t]*[""']?([^""'\r\n,]*)")
    if ($m.Success) { return $m.Groups[1].Value.Trim() }
    $null
}
function Read-WtsCert([string]$Role, [string]$From, [string]$Path, [string]$Pem) {
    $o = [ordered]@{ Role = $Role; From = $From; Path = $Path; Subject = ''; Issuer = ''; NotBefore = ''; NotAfter = ''; Error = '' }
    try {
        if (-not $Pem) { $Pem = Read-WtsText $Path }
        $m = [regex]::Match($Pem, '-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----')
        if (-not $m.Success) { throw 'no CERTIFICATE block in the file' }
        $der = [Convert]::FromBase64String(($m.Groups[1].Value -replace '\s', ''))
        $x = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2 (, $der)
        $o.Subject = [string]$x.Subject
        $o.Issuer = [string]$x.Issuer
        $o.NotBefore = $x.NotBefore.ToUniversalTime().ToString('o')
        $o.NotAfter = $x.NotAfter.ToUniversalTime().ToString('o')
    } catch { $o.Error = [string]$_.Exception.Message }
    [pscustomobject]$o
}
$certDir, $certDirFrom = (Join-Path $env:SystemDrive 'var\lib\kubelet\pki'), 'default'
$f = Get-WtsFlag 'cert-dir'
if ($f) { $certDir, $certDirFrom = (Resolve-WtsPath $f ''), 'kubelet-flag' }
$rotate, $rotateFrom, $serverBoot, $serverBootFrom, $tlsCert = $null, '', $null, '', $null
$cfg = Get-WtsFlag 'config'
if ($cfg) {
    $cfgPath = Resolve-WtsPath $cfg ''
    if (Test-Path -LiteralPath $cfgPath) {
        $text = Read-WtsText $cfgPath
        $v = Get-WtsSetting $text 'rotateCertificates'; if ($v) { $rotate, $rotateFrom = $v.ToLower(), 'config' }
        $v = Get-WtsSetting $text 'serverTLSBootstrap'; if ($v) { $serverBoot, $serverBootFrom = $v.ToLower(), 'config' }
        $v = Get-WtsSetting $text 'tlsCertFile'; if ($v) { $tlsCert = Resolve-WtsPath $v '' }
    }
}
# Flags override the config file, as the kubelet applies them.
$v = Get-WtsFlag 'rotate-certificates' -Bool; if ($v) { $rotate, $rotateFrom = $v, 'kubelet-flag' }
$v = Get-WtsFlag 'rotate-server-certificates' -Bool; if ($v) { $serverBoot, $serverBootFrom = $v, 'kubelet-flag' }
$v = Get-WtsFlag 'tls-cert-file'; if ($v) { $tlsCert = Resolve-WtsPath $v '' }
$certs = New-Object System.Collections.Generic.List[object]
$kubeconfig = Get-WtsFlag 'kubeconfig'
if ($kubeconfig) {
    $kc = Resolve-WtsPath $kubeconfig ''
    if (Test-Path -LiteralPath $kc) {
        $text = Read-WtsText $kc
        $data = [regex]::Match($text, '(?m)^[ \t]*client-certificate-data:[ \t]*([A-Za-z0-9+/=]+)')
        $file = [regex]::Match($text, '(?m)^[ \t]*client-certificate:[ \t]*[''"]?([^''"\r\n]+)')
        if ($data.Success) {
            $pem = [System.Text.Encoding]::ASCII.GetString([Convert]::FromBase64String($data.Groups[1].Value))
            $certs.Add((Read-WtsCert 'client' 'kubeconfig-data' $kc $pem))
        } elseif ($file.Success) {
            $p = Resolve-WtsPath $file.Groups[1].Value.Trim() (Split-Path -Parent $kc)
            if (Test-Path -LiteralPath $p) { $certs.Add((Read-WtsCert 'client' 'kubeconfig' $p '')) }
        }
    }
}
$client = Join-Path $certDir 'kubelet-client-current.pem'
if (-not ($certs | Where-Object { $_.Path -eq $client }) -and (Test-Path -LiteralPath $client)) {
    $certs.Add((Read-WtsCert 'client' 'cert-dir' $client ''))
}
if ($tlsCert) {
    if (Test-Path -LiteralPath $tlsCert) { $certs.Add((Read-WtsCert 'serving' 'tls-cert-file' $tlsCert '')) }
} else {
    foreach ($n in 'kubelet-server-current.pem', 'kubelet.crt') {
        $p = Join-Path $certDir $n
        if (Test-Path -LiteralPath $p) { $certs.Add((Read-WtsCert 'serving' 'cert-dir' $p '')) }
    }
}
[pscustomobject]@{
    Kubelet                = $proc.Count -gt 0
    CertDir                = $certDir
    CertDirFrom            = $certDirFrom
    Kubeconfig             = [string]$kubeconfig
    RotateCertificates     = [string]$rotate
    RotateFrom             = $rotateFrom
    ServerTLSBootstrap     = [string]$serverBoot
    ServerTLSBootstrapFrom = $serverBootFrom
    Certs                  = @($certs)
    CollectedAt            = (Get-Date).ToUniversalTime().ToString('o')
} | ConvertTo-Json -Depth 3
