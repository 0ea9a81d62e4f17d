# The routes in effect: -PolicyStore ActiveStore, since New-NetRoute also writes the
# PersistentStore and listing both would show a route twice (New-NetRoute, Get-NetRoute docs).
ConvertTo-Json -Depth 3 -InputObject @(Get-NetRoute -AddressFamily IPv4 -PolicyStore ActiveStore |
    Select-Object 'DestinationPrefix', 'NextHop', 'InterfaceAlias', 'ifIndex', 'RouteMetric')
