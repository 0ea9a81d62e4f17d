# Free space on C:, where images, snapshots, logs and crash dumps pile up (bytes).
$d = Get-CimInstance Win32_LogicalDisk -Filter "DeviceID='C:'"
if (-not $d) { throw 'Win32_LogicalDisk has no C: drive' }
[pscustomobject]@{ DeviceID = $d.DeviceID; FreeSpace = $d.FreeSpace; Size = $d.Size } | ConvertTo-Json -Depth 3
