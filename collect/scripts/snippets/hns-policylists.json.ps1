param([int]$MaxObjects = 50000)
# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsPolicyList | ConvertTo-Json. hns.v2.psm1 defines it but does not export it, so on
# nodes without the built-in module it comes from hns.psm1 (see Use-WtsHns). Always a JSON array, of at most
# MaxObjects objects (a node with more is far past any real pod density; the note says how
# many were cut).
Use-WtsHns -Command 'Get-HnsPolicyList'
ConvertTo-Json -Depth 8 -InputObject (Limit-WtsList @(Get-HnsPolicyList) $MaxObjects 'Get-HnsPolicyList')
