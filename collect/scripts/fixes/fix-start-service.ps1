param([string[]]$Name)
# Start-Service, with the wait for Running bounded (Start-WtsService).
foreach ($n in $Name) {
    Start-WtsService -Name $n
    Get-Service -Name $n | Select-Object 'Name', 'Status'
}
