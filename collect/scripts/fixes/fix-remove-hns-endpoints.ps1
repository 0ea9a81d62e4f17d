param([string[]]$Id, [string[]]$IPAddress)
# Removes exactly the HNS endpoints the preview listed, each only if it still has the
# address the preview showed: an ID that is gone, or now carries another address, is
# reported and left alone. Id[i] goes with IPAddress[i].
# The commands come from Use-WtsHns, as the snippets get them: on a node with only
# C:\k\hns.v2.psm1 (which exports Get-HnsEndpoint and Remove-HnsEndpoint) it asks for the
# v1 schema, whose endpoints carry IPAddress; schema v2's have IpConfigurations instead,
# so every endpoint would look changed and none be removed.
Use-WtsHns -Command 'Get-HnsEndpoint'
Use-WtsHns -Command 'Remove-HnsEndpoint'
if (-not (Get-Command Remove-HnsEndpoint -ErrorAction SilentlyContinue)) {
    throw 'Remove-HnsEndpoint is not available: no HostNetworkingService module and no C:\k\hns.v2.psm1 or C:\k\hns.psm1'
}
if (@($Id).Count -ne @($IPAddress).Count) { throw "got $(@($Id).Count) IDs and $(@($IPAddress).Count) addresses" }
# One pass over the endpoints (a big node has thousands), then a lookup per listed ID.
$byId = @{}
foreach ($e in @(Get-HnsEndpoint)) { $byId[[string]$e.ID] = $e }
for ($i = 0; $i -lt @($Id).Count; $i++) {
    $ep = $byId[[string]$Id[$i]]
    if (-not $ep) { "skipped $($Id[$i]): no longer exists"; continue }
    if ($ep.IPAddress -ne $IPAddress[$i]) { "skipped $($Id[$i]): its address is now $($ep.IPAddress), not $($IPAddress[$i])"; continue }
    $ep | Remove-HnsEndpoint -ErrorAction Stop | Out-Null
    "removed $($Id[$i]) ($($IPAddress[$i]))"
}
