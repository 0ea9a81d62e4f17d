param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest kubelet log of any layout: the SDN scripts run it with --log-dir=C:\k, so
# klog names the file kubelet.exe.<HOST>.<user>.log.INFO.<time>.<pid> (helper.psm1;
# klog's logName); nssm/PrepareNode.ps1 (C:\var\log\kubelet), GKE/Anthos and NPD
# (C:\etc\kubernetes\logs); C:\k\kubelet*.log for hand-made redirects.
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'kubelet' -MaxBytes $MaxBytes -Paths 'C:\k\kubelet.exe.*.log.INFO.*', 'C:\k\kubelet*.log', 'C:\var\log\kubelet\*.log', 'C:\etc\kubernetes\logs\kubelet*.log'
