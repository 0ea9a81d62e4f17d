# wts:lint-ok json-unbounded: one address per adapter and vEthernet, tens on any node.
ConvertTo-Json -Depth 3 -InputObject @(Get-NetIPAddress -AddressFamily IPv4 |
    Select-Object 'IPAddress', 'PrefixLength', 'InterfaceAlias', 'ifIndex')
