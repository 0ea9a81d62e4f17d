param([string[]]$Name)
# Restart-Service -Force, with each stop and start bounded (Start-WtsService -Restart).
foreach ($n in $Name) {
    Start-WtsService -Name $n -Restart
    Get-Service -Name $n | Select-Object 'Name', 'Status'
}
