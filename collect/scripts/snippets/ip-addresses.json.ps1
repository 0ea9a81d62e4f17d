ConvertTo-Json -Depth 3 -InputObject @(Get-NetIPAddress -AddressFamily IPv4 |
    Select-Object 'IPAddress', 'PrefixLength', 'InterfaceAlias', 'ifIndex')
