param([string]$HttpProxy, [string]$HttpsProxy, [string]$NoProxy, [string[]]$Service, [string[]]$Restart)
# The remedy of the Kubernetes and Microsoft docs (DOMAIN.md FM-31): the machine-level
# variables every service inherits, the same values in each runtime service's own
# Environment (REG_MULTI_SZ; its entries other than *_PROXY are kept, so an entry set
# there cannot shadow the machine's), then a restart: a service reads its environment
# only when it starts. Values come as parameters, never spliced into the script.
$vars = [ordered]@{ HTTP_PROXY = $HttpProxy; HTTPS_PROXY = $HttpsProxy; NO_PROXY = $NoProxy }
foreach ($n in $vars.Keys) {
    if ($vars[$n]) { [Environment]::SetEnvironmentVariable($n, $vars[$n], 'Machine') }
}
foreach ($s in $Service) {
    $key = "HKLM:\SYSTEM\CurrentControlSet\Services\$s"
    if (-not (Test-Path $key)) { throw "no service $s" }
    $kept = @(@((Get-ItemProperty -Path $key -Name Environment -ErrorAction SilentlyContinue).Environment) |
            Where-Object { $_ -and $_ -notmatch '^(HTTPS?|NO)_PROXY=' })
    $new = $kept + @(foreach ($n in $vars.Keys) { if ($vars[$n]) { "$n=$($vars[$n])" } })
    # -Type is the registry provider's dynamic parameter of Set-ItemProperty.
    Set-ItemProperty -Path $key -Name Environment -Type MultiString -Value ([string[]]$new)
    Start-WtsService -Name $s -Restart
}
foreach ($s in $Restart) { Start-WtsService -Name $s -Restart }
# What the services will now see, userinfo cut as the evidence snippet cuts it.
foreach ($n in $vars.Keys) {
    $v = [Environment]::GetEnvironmentVariable($n, 'Machine')
    if ($v) { "machine $n=" + ($v -replace '://[^/@\s]*@', '://***REDACTED***@') }
}
