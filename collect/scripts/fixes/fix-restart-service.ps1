param([string[]]$Name)
# Restart-Service -Force, with each stop and start bounded (Start-WtsService -Restart).
# Through a HostProcess pod, the kubelet and containerd restart in a process of their own
# (Restart-WtsServiceDetached): their restart would cut this call's exec stream.
foreach ($n in $Name) {
    if (Test-WtsRestartCutsExec $n) { Restart-WtsServiceDetached -Name $n; continue }
    Start-WtsService -Name $n -Restart
    Get-Service -Name $n | Select-Object 'Name', 'Status'
}
