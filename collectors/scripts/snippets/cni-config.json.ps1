$dirs = 'C:\k\cni\config', 'C:\etc\cni\net.d', 'C:\ProgramData\containerd\cni\conf'
$f = Get-ChildItem -Path $dirs -File -ErrorAction SilentlyContinue |
    Where-Object { $_.Extension -in '.conf', '.conflist', '.json' } | Sort-Object Name | Select-Object -First 1
if (-not $f) { throw "no CNI config in $($dirs -join ', ')" }
Get-Content -Raw -LiteralPath $f.FullName
