param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest containerd log (AKS C:\k, nssm C:\var\log, NPD C:\etc\kubernetes\logs, rke2's
# <data-dir>\agent\containerd\containerd.log per k3s pkg/daemons/agent) or the
# runtime panic log. Docker logs to the event log, so only its panic.log is a file.
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'container runtime' -MaxBytes $MaxBytes -Paths 'C:\k\containerd*.log', 'C:\var\log\containerd\*.log', 'C:\etc\kubernetes\logs\containerd*.log', 'C:\var\lib\rancher\rke2\agent\containerd\containerd.log', 'C:\ProgramData\containerd\root\panic.log', 'C:\ProgramData\docker\panic.log'
