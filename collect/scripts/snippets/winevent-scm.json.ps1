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
$rows = @($events | Where-Object { $_ } | Sort-Object TimeCreated | Select-Object @{ n = 'TimeCreated'; e = { $_.TimeCreated.ToUniversalTime().ToString('o') } },
    'Id', 'Level', 'LevelDisplayName', 'ProviderName', 'Message')
ConvertTo-Json -InputObject $rows -Depth 3
