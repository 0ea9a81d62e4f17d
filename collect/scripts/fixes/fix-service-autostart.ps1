param([string[]]$Name)
# Automatic start, restart on failure, then start. sc.exe failureflag 1 makes the restart
# actions apply also when the service stops with an error, not only when it crashes
# ("sc.exe failureflag", SERVICE_FAILURE_ACTIONS_FLAG).
foreach ($n in $Name) {
    Set-Service -Name $n -StartupType Automatic -ErrorAction Stop
    & sc.exe failure $n reset= 0 actions= restart/10000/restart/10000/restart/10000 | Out-Null
    if ($LASTEXITCODE) { throw "sc.exe failure $n exited $LASTEXITCODE" }
    & sc.exe failureflag $n 1 | Out-Null
    if ($LASTEXITCODE) { throw "sc.exe failureflag $n exited $LASTEXITCODE" }
    Start-WtsService -Name $n
    Get-Service -Name $n | Select-Object 'Name', 'Status', 'StartType'
}
