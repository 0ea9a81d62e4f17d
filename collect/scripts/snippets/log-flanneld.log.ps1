param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest flanneld log of either layout (SDN C:\k, nssm C:\var\log).
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'flanneld' -MaxBytes $MaxBytes -Paths 'C:\k\flanneld*.log', 'C:\var\log\flanneld\*.log', 'C:\etc\kubernetes\logs\flanneld*.log'
