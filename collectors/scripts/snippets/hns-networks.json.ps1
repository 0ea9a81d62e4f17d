# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsNetwork | ConvertTo-Json in the v1 schema; Get-WtsHns finds the command and asks
# hns.v2.psm1 for -Version 1 (its default is v2). Always a JSON array.
ConvertTo-Json -Depth 8 -InputObject @(Get-WtsHns -Command 'Get-HnsNetwork')
