param([object[]]$Routes)
foreach ($r in $Routes) {
    $have = Get-NetRoute -AddressFamily IPv4 -DestinationPrefix $r.Prefix -ErrorAction SilentlyContinue |
        Where-Object { $_.NextHop -eq $r.NextHop }
    if ($have) { "exists: $($r.Prefix) via $($r.NextHop)"; continue }
    New-NetRoute -DestinationPrefix $r.Prefix -NextHop $r.NextHop -InterfaceAlias $r.InterfaceAlias -RouteMetric 300 -ErrorAction Stop | Out-Null
    "added: $($r.Prefix) via $($r.NextHop) on $($r.InterfaceAlias)"
}
