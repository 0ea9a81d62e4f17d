@(Get-NetIPAddress -AddressFamily IPv4 |
    Select-Object IPAddress, PrefixLength, InterfaceAlias, ifIndex) | ConvertTo-Json -Depth 3
