param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest containerd log (AKS C:\k, nssm C:\var\log, NPD C:\etc\kubernetes\logs) or
# runtime panic log. Docker logs to the event log, so only its panic.log is a file.
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'container runtime' -MaxBytes $MaxBytes -Paths 'C:\k\containerd*.log', 'C:\var\log\containerd\*.log', 'C:\etc\kubernetes\logs\containerd*.log', 'C:\ProgramData\containerd\root\panic.log', 'C:\ProgramData\docker\panic.log'
