# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsEndpoint | ConvertTo-Json in the v1 schema (see Use-WtsHns). Always a JSON array.
Use-WtsHns -Command 'Get-HnsEndpoint'
ConvertTo-Json -Depth 8 -InputObject @(Get-HnsEndpoint)
