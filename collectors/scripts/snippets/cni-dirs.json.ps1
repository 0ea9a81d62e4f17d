# Where containerd's CRI plugin looks for CNI configs and plugin binaries, and what is in
# each folder (names only). conf_dir and bin_dir (containerd 2.1+: bin_dirs, a list; the
# first is used here) come from config.toml; unset, containerd 1.6, 1.7 and 2.x use their
# Windows defaults %ProgramFiles%\containerd\cni\conf and ...\cni\bin
# (pkg/cri/config/config_windows.go, internal/cri/config/config_windows.go). A basic TOML
# string has its backslashes doubled; a literal ('...') string has them as written.
$toml = Join-Path $env:ProgramFiles 'containerd\config.toml'
if (-not (Test-Path -LiteralPath $toml)) { throw "no containerd config at $toml" }
$text = Get-Content -Raw -LiteralPath $toml
$found = @{}
foreach ($key in 'conf_dir', 'bin_dirs', 'bin_dir') {
    $m = [regex]::Match($text, "(?m)^[ \t]*$key[ \t]*=[ \t]*\[?[ \t]*(?:""((?:[^""\\\r\n]|\\.)*)""|'([^'\r\n]*)')")
    if ($m.Success) {
        if ($m.Groups[1].Success) { $found[$key] = $m.Groups[1].Value -replace '\\\\', '\' } else { $found[$key] = $m.Groups[2].Value }
    }
}
$conf, $confFrom = (Join-Path $env:ProgramFiles 'containerd\cni\conf'), 'default'
if ($found['conf_dir']) { $conf, $confFrom = $found['conf_dir'], 'config.toml' }
$bin, $binFrom = (Join-Path $env:ProgramFiles 'containerd\cni\bin'), 'default'
if ($found['bin_dirs']) { $bin, $binFrom = $found['bin_dirs'], 'config.toml' } elseif ($found['bin_dir']) { $bin, $binFrom = $found['bin_dir'], 'config.toml' }
$confFiles = @(Get-ChildItem -LiteralPath $conf -File -ErrorAction SilentlyContinue | Sort-Object Name | ForEach-Object { $_.Name })
$binFiles = @(Get-ChildItem -LiteralPath $bin -File -Filter '*.exe' -ErrorAction SilentlyContinue | Sort-Object Name | ForEach-Object { $_.Name })
[pscustomobject]@{
    ConfDir = $conf; ConfDirFrom = $confFrom; ConfFiles = $confFiles
    BinDir = $bin; BinDirFrom = $binFrom; BinFiles = $binFiles
} | ConvertTo-Json -Depth 3
