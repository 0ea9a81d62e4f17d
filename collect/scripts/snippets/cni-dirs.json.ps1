# Where the runtime looks for CNI configs and plugin binaries, and what is in each folder
# (names only). containerd: conf_dir and bin_dir (containerd 2.1+: bin_dirs, a list; the
# first is used here) come from config.toml; unset, containerd 1.6, 1.7 and 2.x use their
# Windows defaults %ProgramFiles%\containerd\cni\conf and ...\cni\bin
# (pkg/cri/config/config_windows.go, internal/cri/config/config_windows.go). A basic TOML
# string has its backslashes doubled; a literal ('...') string has them as written.
# Docker (dockershim, kubelet < 1.24): the kubelet's own --cni-conf-dir and --cni-bin-dir
# name the folders (cmd/kubelet/app/options/container_runtime.go: defaults /etc/cni/net.d
# and /opt/cni/bin, which Windows resolves on the system drive; --cni-bin-dir is a
# comma-separated list, the first is used here); microsoft/SDN start-kubelet.ps1 passes
# c:\k\cni and c:\k\cni\config. --network-plugin other than cni uses no CNI at all.
$toml = Join-Path $env:ProgramFiles 'containerd\config.toml'
$plugin = $null
if (Test-Path -LiteralPath $toml) {
    $text = Read-WtsText $toml
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
} else {
    # Win32_Process.CommandLine as processes.json records it; flags as `--name=value` or
    # `--name value`, the value quoted or not (helper.psm1 Kubelet-Options quotes it).
    $kubelet = @(Get-CimInstance -ClassName Win32_Process -Filter "Name='kubelet.exe'")
    if (-not (Get-Service -Name docker -ErrorAction SilentlyContinue) -or $kubelet.Count -eq 0) {
        throw "no containerd config at $toml"
    }
    $cmd = [string]$kubelet[0].CommandLine
    $flag = @{}
    foreach ($key in 'cni-conf-dir', 'cni-bin-dir', 'network-plugin') {
        # A flag given twice keeps its last value, as the kubelet's pflag does.
        $ms = [regex]::Matches($cmd, "--$key(?:=|[ \t]+)(?:""([^""]*)""|([^ \t""]*))")
        if ($ms.Count -gt 0) { $m = $ms[$ms.Count - 1]; $flag[$key] = ($m.Groups[1].Value + $m.Groups[2].Value) }
    }
    $plugin = [string]$flag['network-plugin']
    $conf, $confFrom = (Join-Path $env:SystemDrive 'etc\cni\net.d'), 'kubelet-default'
    if ($flag.ContainsKey('cni-conf-dir') -and $flag['cni-conf-dir']) { $conf, $confFrom = $flag['cni-conf-dir'], 'kubelet-flag' }
    $bin, $binFrom = (Join-Path $env:SystemDrive 'opt\cni\bin'), 'kubelet-default'
    if ($flag.ContainsKey('cni-bin-dir') -and $flag['cni-bin-dir']) { $bin, $binFrom = ($flag['cni-bin-dir'] -split ',')[0], 'kubelet-flag' }
}
$confFiles = @(Get-ChildItem -LiteralPath $conf -File -ErrorAction SilentlyContinue | Sort-Object Name | ForEach-Object { $_.Name })
$binFiles = @(Get-ChildItem -LiteralPath $bin -File -Filter '*.exe' -ErrorAction SilentlyContinue | Sort-Object Name | ForEach-Object { $_.Name })
$out = [ordered]@{
    ConfDir = $conf; ConfDirFrom = $confFrom; ConfFiles = $confFiles
    BinDir = $bin; BinDirFrom = $binFrom; BinFiles = $binFiles
}
if ($null -ne $plugin) { $out['NetworkPlugin'] = $plugin }
[pscustomobject]$out | ConvertTo-Json -Depth 3
