param([int]$MaxObjects = 50000)
# wts:may-hang: HNS calls block while the Host Network Service is wedged.
# Get-HnsEndpoint | ConvertTo-Json in the v1 schema (see Use-WtsHns). Always a JSON array, of at most
# MaxObjects objects (a node with more is far past any real pod density; the note says how
# many were cut).
Use-WtsHns -Command 'Get-HnsEndpoint'
ConvertTo-Json -Depth 8 -InputObject (Limit-WtsList @(Get-HnsEndpoint) $MaxObjects 'Get-HnsEndpoint')
