$cv = Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'
$cs = Get-CimInstance Win32_ComputerSystem
$os = Get-CimInstance Win32_OperatingSystem
[pscustomobject]@{
    ComputerName   = $env:COMPUTERNAME
    DnsHostName    = [System.Net.Dns]::GetHostName()
    Domain         = $cs.Domain
    PartOfDomain   = $cs.PartOfDomain
    ProductName    = $cv.ProductName
    CurrentBuild   = $cv.CurrentBuild
    UBR            = $cv.UBR
    BuildLabEx     = $cv.BuildLabEx
    LastBootUpTime = $os.LastBootUpTime.ToUniversalTime().ToString('o')
    CollectedAt    = (Get-Date).ToUniversalTime().ToString('o')
} | ConvertTo-Json -Depth 3
