param([string[]]$Name)
foreach ($n in $Name) {
    Start-Service -Name $n -ErrorAction Stop
    Get-Service -Name $n | Select-Object 'Name', 'Status'
}
