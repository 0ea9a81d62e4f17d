param([long]$MaxBytes = 10485760, [string]$Since = '')
# The node's provisioning log: Anthos startup.log, or AKS CustomDataSetupScript.log.
# Prints the last MaxBytes bytes, read from the end (logs can be gigabytes). Since is
# accepted but not applied: klog lines carry no year, and a stale log is evidence too.
$paths = 'C:\var\log\startup.log', 'C:\etc\kubernetes\logs\startup*.log', 'C:\AzureData\CustomDataSetupScript.log'
$log = Get-ChildItem -Path $paths -File -ErrorAction SilentlyContinue |
    Sort-Object LastWriteTime | Select-Object -Last 1
if (-not $log) { throw "no node startup log in $($paths -join ', ')" }
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
