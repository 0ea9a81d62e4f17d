param([string]$Since = '', [int]$MaxEvents = 2000)
# Service Control Manager events of the System log (service crashes, restarts, start
# failures, recovery actions) since Since (RFC 3339; default: the last 24 hours), oldest
# first. Level is the number (LevelDisplayName is localized). No events: [].
$start = (Get-Date).AddDays(-1)
if ($Since) { $start = [DateTime]::Parse($Since, [Globalization.CultureInfo]::InvariantCulture, 'RoundtripKind') }
$events = try {
    Get-WinEvent -FilterHashtable @{ LogName = 'System'; ProviderName = 'Service Control Manager'; StartTime = $start } -MaxEvents $MaxEvents -ErrorAction Stop
} catch {
    if ($_.FullyQualifiedErrorId -notlike 'NoMatchingEventsFound*') { throw }
}
# Get-WinEvent reads newest first, so -MaxEvents keeps the newest; when it filled up,
# older events were cut, and the note says so with the log's own record count.
if (@($events).Count -ge $MaxEvents) {
    Write-Warning "System: kept the newest $MaxEvents Service Control Manager events since $($start.ToUniversalTime().ToString('o')); older ones were cut (the log holds $((Get-WinEvent -ListLog System).RecordCount) records)"
}
$rows = @($events | Where-Object { $_ } | Sort-Object TimeCreated | Select-Object @{ n = 'TimeCreated'; e = { $_.TimeCreated.ToUniversalTime().ToString('o') } },
    'Id', 'Level', 'LevelDisplayName', 'ProviderName', @{ n = 'Message'; e = { Limit-WtsText $_.Message 4096 } })
ConvertTo-Json -InputObject $rows -Depth 3
