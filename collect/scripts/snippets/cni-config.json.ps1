# The CNI config the runtime loads: the first file by name (as libcni orders them) of the
# first folder that has one. containerd's own conf_dir from config.toml comes first, then
# containerd's Windows default (%ProgramFiles%\containerd\cni\conf), the SDN scripts'
# C:\k\cni\config, sig-windows-tools' C:\etc\cni\net.d and AKS's C:\k\azurecni\netconf.
$dirs = @()
$toml = Join-Path $env:ProgramFiles 'containerd\config.toml'
if (Test-Path -LiteralPath $toml) {
    $m = Select-String -LiteralPath $toml -Pattern '^\s*conf_dir\s*=\s*"([^"]+)"' | Select-Object -First 1
    if ($m) { $dirs += $m.Matches[0].Groups[1].Value -replace '\\\\', '\' }
}
$dirs += (Join-Path $env:ProgramFiles 'containerd\cni\conf'), 'C:\k\cni\config', 'C:\etc\cni\net.d', 'C:\k\azurecni\netconf', 'C:\ProgramData\containerd\cni\conf'
foreach ($d in $dirs) {
    $f = Get-ChildItem -LiteralPath $d -File -ErrorAction SilentlyContinue |
        Where-Object { $_.Extension -in '.conf', '.conflist', '.json' } | Sort-Object Name | Select-Object -First 1
    if ($f) { return Read-WtsText $f.FullName }
}
throw "no CNI config in $($dirs -join ', ')"
