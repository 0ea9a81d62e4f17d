param([string]$Service, [string]$Network)
# KUBE_NETWORK must reach the service's own environment: a machine environment variable
# is not seen by services the SCM starts until the next reboot. nssm passes
# Parameters\AppEnvironmentExtra; any other service gets the Environment value (REG_MULTI_SZ)
# of its service key, which the SCM hands to the process it starts.
$key = "HKLM:\SYSTEM\CurrentControlSet\Services\$Service"
if (-not (Test-Path $key)) { throw "no service ${Service}: kube-proxy runs in the foreground here (restart it with -NetworkName $Network)" }
$p = Join-Path $key 'Parameters'
$value = 'Environment'
if (Test-Path $p) { $key = $p; $value = 'AppEnvironmentExtra' }
$vars = @((Get-ItemProperty $key -Name $value -ErrorAction SilentlyContinue).$value |
    Where-Object { $_ -and $_ -notlike 'KUBE_NETWORK=*' }) + "KUBE_NETWORK=$Network"
Set-ItemProperty $key -Name $value -Value ([string[]]$vars) -Type MultiString
Start-WtsService -Name $Service -Restart
"kube-proxy now uses KUBE_NETWORK=$Network ($value of $Service)"
