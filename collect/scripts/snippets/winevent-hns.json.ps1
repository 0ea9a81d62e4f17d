param([string]$Since = '', [int]$MaxEvents = 2000)
# Host Network Service and Hyper-V Compute (HCS) events since Since (RFC 3339; default:
# the last 24 hours), oldest first. A log missing on this build is skipped; a log that
# cannot be read is reported and the others still are.
$start = (Get-Date).AddDays(-1)
if ($Since) { $start = [DateTime]::Parse($Since, [Globalization.CultureInfo]::InvariantCulture, 'RoundtripKind') }
$logs = 'Microsoft-Windows-Host-Network-Service-Admin', 'Microsoft-Windows-Host-Network-Service-Operational',
    'Microsoft-Windows-Hyper-V-Compute-Admin', 'Microsoft-Windows-Hyper-V-Compute-Operational'
$events = foreach ($log in $logs) {
    if (-not (Get-WinEvent -ListLog $log -ErrorAction SilentlyContinue)) { continue }
    try {
        $got = @(Get-WinEvent -FilterHashtable @{ LogName = $log; StartTime = $start } -MaxEvents $MaxEvents -ErrorAction Stop)
        # Newest first, so -MaxEvents kept the newest; a full batch means older ones were cut.
        if ($got.Count -ge $MaxEvents) {
            Write-Warning "${log}: kept the newest $MaxEvents events since $($start.ToUniversalTime().ToString('o')); older ones were cut (the log holds $((Get-WinEvent -ListLog $log).RecordCount) records)"
        }
        $got
    } catch {
        if ($_.FullyQualifiedErrorId -notlike 'NoMatchingEventsFound*') { Write-Error $_ }
    }
}
$rows = @($events | Where-Object { $_ } | Sort-Object TimeCreated | Select-Object @{ n = 'TimeCreated'; e = { $_.TimeCreated.ToUniversalTime().ToString('o') } },
    'Id', 'Level', 'LevelDisplayName', 'LogName', 'ProviderName', @{ n = 'Message'; e = { Limit-WtsText $_.Message 4096 } })
ConvertTo-Json -InputObject $rows -Depth 3
