if (-not (Get-Command Get-HnsNetwork -ErrorAction SilentlyContinue)) {
    foreach ($m in 'C:\k\hns.v2.psm1', 'C:\k\hns.psm1') { if (Test-Path $m) { Import-Module $m -DisableNameChecking; break } }
}
ConvertTo-Json -Depth 8 -InputObject @(Get-HnsNetwork)
