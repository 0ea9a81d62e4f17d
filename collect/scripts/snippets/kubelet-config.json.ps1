$files = 'C:\var\lib\kubelet\config.yaml', 'C:\k\kubelet-config.yaml', 'C:\etc\kubernetes\kubelet-config.yaml'
$f = $files | Where-Object { Test-Path $_ } | Select-Object -First 1
if (-not $f) { throw "no kubelet config file in $($files -join ', ')" }
Read-WtsText $f
