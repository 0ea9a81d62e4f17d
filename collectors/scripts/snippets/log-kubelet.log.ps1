param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest kubelet log of either layout: SDN scripts (C:\k), nssm/PrepareNode.ps1
# (C:\var\log\kubelet), GKE/Anthos and NPD (C:\etc\kubernetes\logs).
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'kubelet' -MaxBytes $MaxBytes -Paths 'C:\k\kubelet*.log', 'C:\var\log\kubelet\*.log', 'C:\etc\kubernetes\logs\kubelet*.log'
