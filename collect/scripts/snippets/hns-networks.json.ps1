# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsNetwork | ConvertTo-Json in the v1 schema (Use-WtsHns finds the command and asks
# hns.v2.psm1 for version 1). Always a JSON array.
Use-WtsHns -Command 'Get-HnsNetwork'
# wts:lint-ok json-unbounded: a node has a handful of HNS networks (nat, the CNI's, ext).
ConvertTo-Json -Depth 8 -InputObject @(Get-HnsNetwork)
