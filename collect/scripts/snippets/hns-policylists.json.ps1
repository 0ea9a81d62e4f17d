# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsPolicyList | ConvertTo-Json. hns.v2.psm1 defines it but does not export it, so on
# nodes without the built-in module it comes from hns.psm1 (see Use-WtsHns). Always a JSON array.
Use-WtsHns -Command 'Get-HnsPolicyList'
ConvertTo-Json -Depth 8 -InputObject @(Get-HnsPolicyList)
