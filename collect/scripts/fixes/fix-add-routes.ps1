param([object[]]$Routes)
# Only the active store counts: New-NetRoute writes the active and the persistent store, and a
# persistent-only route is not in effect (New-NetRoute, Get-NetRoute -PolicyStore docs).
foreach ($r in $Routes) {
    $have = Get-NetRoute -AddressFamily IPv4 -DestinationPrefix $r.Prefix -PolicyStore ActiveStore -ErrorAction SilentlyContinue |
        Where-Object { $_.NextHop -eq $r.NextHop }
    if ($have) { "exists: $($r.Prefix) via $($r.NextHop)"; continue }
    New-NetRoute -DestinationPrefix $r.Prefix -NextHop $r.NextHop -InterfaceAlias $r.InterfaceAlias -RouteMetric 300 -ErrorAction Stop | Out-Null
    "added: $($r.Prefix) via $($r.NextHop) on $($r.InterfaceAlias)"
}
