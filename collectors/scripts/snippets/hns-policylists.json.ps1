# Get-HnsPolicyList | ConvertTo-Json: the HostNetworkingService module, or the SDN scripts'
# hns.v2.psm1 / hns.psm1 on builds that lack it. Always a JSON array.
if (-not (Get-Command Get-HnsPolicyList -ErrorAction SilentlyContinue)) {
    foreach ($m in 'C:\k\hns.v2.psm1', 'C:\k\hns.psm1') { if (Test-Path $m) { Import-Module $m -DisableNameChecking; break } }
}
if (-not (Get-Command Get-HnsPolicyList -ErrorAction SilentlyContinue)) {
    throw 'Get-HnsPolicyList is not available: no HostNetworkingService module and no C:\k\hns.v2.psm1'
}
ConvertTo-Json -InputObject @(Get-HnsPolicyList) -Depth 8
