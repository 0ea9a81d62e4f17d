param([string[]]$Name)
foreach ($n in $Name) {
    Set-Service -Name $n -StartupType Automatic -ErrorAction Stop
    & sc.exe failure $n reset= 0 actions= restart/10000/restart/10000/restart/10000 | Out-Null
    if ($LASTEXITCODE) { throw "sc.exe failure $n exited $LASTEXITCODE" }
    Start-Service -Name $n -ErrorAction Stop
    Get-Service -Name $n | Select-Object 'Name', 'Status', 'StartType'
}
