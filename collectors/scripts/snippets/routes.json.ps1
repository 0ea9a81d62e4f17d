@(Get-NetRoute -AddressFamily IPv4 |
    Select-Object DestinationPrefix, NextHop, InterfaceAlias, ifIndex, RouteMetric) | ConvertTo-Json -Depth 3
