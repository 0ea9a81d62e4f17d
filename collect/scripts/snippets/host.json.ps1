$cv = Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'
$cs = Get-CimInstance Win32_ComputerSystem
$os = Get-CimInstance Win32_OperatingSystem
# The Containers feature (HCS, the host side of every Windows container), as DISM names it
# on Server and client alike (Enable-WindowsOptionalFeature -FeatureName Containers,
# microsoft/Windows-Containers#439). Win32_OptionalFeature.InstallState: 1 Enabled,
# 2 Disabled, 3 Absent, 4 Unknown (learn.microsoft.com, Win32_OptionalFeature class);
# 0 here when the OS lists no such feature.
$cf = Get-CimInstance Win32_OptionalFeature -Filter "Name='Containers'" -ErrorAction SilentlyContinue
[pscustomobject]@{
    ComputerName      = $env:COMPUTERNAME
    DnsHostName       = [System.Net.Dns]::GetHostName()
    Domain            = $cs.Domain
    PartOfDomain      = $cs.PartOfDomain
    ProductName       = $cv.ProductName
    CurrentBuild      = $cv.CurrentBuild
    UBR               = $cv.UBR
    BuildLabEx        = $cv.BuildLabEx
    LastBootUpTime    = $os.LastBootUpTime.ToUniversalTime().ToString('o')
    CollectedAt       = (Get-Date).ToUniversalTime().ToString('o')
    ContainersFeature = if ($cf) { [int]@($cf)[0].InstallState } else { 0 }
} | ConvertTo-Json -Depth 3
