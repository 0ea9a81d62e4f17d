ConvertTo-Json -Depth 3 -InputObject @(Get-NetRoute -AddressFamily IPv4 |
    Select-Object DestinationPrefix, NextHop, InterfaceAlias, ifIndex, RouteMetric)
