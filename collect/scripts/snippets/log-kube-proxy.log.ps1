param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest kube-proxy log of any layout: klog's --log-dir=C:\k name (SDN
# start-kubeproxy.ps1), AKS/aks-engine C:\k\kubeproxy.log, nssm C:\var\log, GKE/Anthos.
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'kube-proxy' -MaxBytes $MaxBytes -Paths 'C:\k\kube-proxy.exe.*.log.INFO.*', 'C:\k\kubeproxy.log', 'C:\k\kube-proxy*.log', 'C:\var\log\kube-proxy\*.log', 'C:\etc\kubernetes\logs\kube-proxy*.log'
