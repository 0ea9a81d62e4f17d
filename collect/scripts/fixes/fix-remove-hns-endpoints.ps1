param([string[]]$Id, [string[]]$IPAddress)
# Removes exactly the HNS endpoints the preview listed, each only if it still has the
# address the preview showed: an ID that is gone, or now carries another address, is
# reported and left alone. Id[i] goes with IPAddress[i].
if (-not (Get-Command Get-HnsEndpoint -ErrorAction SilentlyContinue)) {
    foreach ($m in 'C:\k\hns.v2.psm1', 'C:\k\hns.psm1') { if (Test-Path $m) { Import-Module $m -DisableNameChecking; break } }
}
if (-not (Get-Command Remove-HnsEndpoint -ErrorAction SilentlyContinue)) {
    throw 'Remove-HnsEndpoint is not available: no HostNetworkingService module and no C:\k\hns.v2.psm1'
}
if (@($Id).Count -ne @($IPAddress).Count) { throw "got $(@($Id).Count) IDs and $(@($IPAddress).Count) addresses" }
$all = @(Get-HnsEndpoint)
for ($i = 0; $i -lt @($Id).Count; $i++) {
    $ep = $all | Where-Object { $_.ID -eq $Id[$i] }
    if (-not $ep) { "skipped $($Id[$i]): no longer exists"; continue }
    if ($ep.IPAddress -ne $IPAddress[$i]) { "skipped $($Id[$i]): its address is now $($ep.IPAddress), not $($IPAddress[$i])"; continue }
    $ep | Remove-HnsEndpoint -ErrorAction Stop | Out-Null
    "removed $($Id[$i]) ($($IPAddress[$i]))"
}
