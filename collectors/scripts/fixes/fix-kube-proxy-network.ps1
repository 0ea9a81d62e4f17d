param([string]$Service, [string]$Network)
$p = "HKLM:\SYSTEM\CurrentControlSet\Services\$Service\Parameters"
if (Test-Path $p) {
    $vars = @((Get-ItemProperty $p -Name AppEnvironmentExtra -ErrorAction SilentlyContinue).AppEnvironmentExtra |
        Where-Object { $_ -and $_ -notlike 'KUBE_NETWORK=*' }) + "KUBE_NETWORK=$Network"
    Set-ItemProperty $p -Name AppEnvironmentExtra -Value ([string[]]$vars) -Type MultiString
} else {
    [Environment]::SetEnvironmentVariable('KUBE_NETWORK', $Network, 'Machine')
}
Restart-Service -Name $Service -Force -ErrorAction Stop
"kube-proxy now uses KUBE_NETWORK=$Network"
