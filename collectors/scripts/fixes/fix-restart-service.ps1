param([string[]]$Name)
foreach ($n in $Name) {
    Restart-Service -Name $n -Force -ErrorAction Stop
    Get-Service -Name $n | Select-Object 'Name', 'Status'
}
