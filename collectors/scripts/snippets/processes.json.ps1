$names = 'kubelet.exe','kube-proxy.exe','flanneld.exe','containerd.exe','dockerd.exe'
@(Get-CimInstance Win32_Process | Where-Object { $names -contains $_.Name } |
    Select-Object Name, ProcessId, CommandLine) | ConvertTo-Json -Depth 3
