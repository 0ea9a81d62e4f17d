# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsEndpoint | ConvertTo-Json in the v1 schema (see Get-WtsHns). Always a JSON array.
ConvertTo-Json -Depth 8 -InputObject @(Get-WtsHns -Command 'Get-HnsEndpoint')
