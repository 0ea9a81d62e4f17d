$names = 'kubelet.exe','kube-proxy.exe','flanneld.exe','containerd.exe','dockerd.exe'
# wts:lint-ok json-unbounded: Where-Object keeps the five programs named above.
ConvertTo-Json -Depth 3 -InputObject @(Get-CimInstance Win32_Process | Where-Object { $names -contains $_.Name } |
    Select-Object 'Name', 'ProcessId', 'CommandLine')
