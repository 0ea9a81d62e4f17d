param([long]$MaxBytes = 10485760, [string]$Since = '')
# The newest containerd log (AKS C:\k, nssm C:\var\log, NPD C:\etc\kubernetes\logs) or
# runtime panic log. Docker logs to the event log, so only its panic.log is a file.
# Prints the last MaxBytes bytes, read from the end (logs can be gigabytes). Since is
# accepted but not applied: klog lines carry no year, and a stale log is evidence too.
$paths = 'C:\k\containerd*.log', 'C:\var\log\containerd\*.log', 'C:\etc\kubernetes\logs\containerd*.log', 'C:\ProgramData\containerd\root\panic.log', 'C:\ProgramData\docker\panic.log'
$log = Get-ChildItem -Path $paths -File -ErrorAction SilentlyContinue |
    Sort-Object LastWriteTime | Select-Object -Last 1
if (-not $log) { throw "no container runtime log in $($paths -join ', ')" }
if ($MaxBytes -le 0) { throw "MaxBytes must be positive, not $MaxBytes" }
# ReadWrite sharing: the service keeps the file open for writing.
$fs = [System.IO.File]::Open($log.FullName, 'Open', 'Read', 'ReadWrite')
try {
    $n = [Math]::Min($MaxBytes, $fs.Length)
    [void]$fs.Seek(-$n, 'End')
    $buf = New-Object byte[] $n
    $got = 0
    while ($got -lt $n) {
        $r = $fs.Read($buf, $got, $n - $got)
        if ($r -le 0) { break }
        $got += $r
    }
    [System.Text.Encoding]::UTF8.GetString($buf, 0, $got)
} finally {
    $fs.Dispose()
}
