param([int]$MaxObjects = 100000)
# The routes in effect: -PolicyStore ActiveStore, since New-NetRoute also writes the
# PersistentStore and listing both would show a route twice (New-NetRoute, Get-NetRoute docs).
# Protocol (MSFT_NetRoute: Local, NetMgmt, Dhcp, Bgp...) says who added a route: the RRAS
# BGP router Calico's windows-bgp mode drives writes its learned routes as Bgp. It is an
# enum that ConvertTo-Json in PowerShell 5.1 writes as its number, so it is taken as text.
# At most MaxObjects routes (a BGP node learns one per peer's pod subnet: thousands at
# most; the note says how many were cut).
$routes = @(Get-NetRoute -AddressFamily IPv4 -PolicyStore ActiveStore |
    Select-Object 'DestinationPrefix', 'NextHop', 'InterfaceAlias', 'ifIndex', 'RouteMetric',
        @{n = 'Protocol'; e = { "$($_.Protocol)" } })
ConvertTo-Json -Depth 3 -InputObject (Limit-WtsList $routes $MaxObjects 'Get-NetRoute')
