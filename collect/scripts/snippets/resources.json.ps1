# wts:may-hang: crictl blocks when containerd's pipe does not answer (bounded by --timeout).
# TCP dynamic ports, memory and commit, as counts (no addresses, no process command
# lines). The range is Get-NetTCPSetting's (one range for every setting; the
# "Automatic" setting leaves it empty), else netsh's "Start Port"/"Number of Ports".
# A port counts as used when any TCP connection (any state, TIME_WAIT and Bound
# included) holds it locally; the largest owners are named by process.
$start, $count = 0, 0
$s = Get-NetTCPSetting -ErrorAction SilentlyContinue | Where-Object { $_.DynamicPortRangeNumberOfPorts } | Select-Object -First 1
if ($s) {
    $start, $count = [int]$s.DynamicPortRangeStartPort, [int]$s.DynamicPortRangeNumberOfPorts
} else {
    $n = @(netsh int ipv4 show dynamicport tcp | Select-String -Pattern ':\s*(\d+)\s*$' | ForEach-Object { [int]$_.Matches[0].Groups[1].Value })
    if ($n.Count -ge 2) { $start, $count = $n[0], $n[1] }
    # A netsh that failed leaves the range 0; its exit status must not fail the frame.
    $global:LASTEXITCODE = 0
}
# Excluded ranges inside the dynamic range are taken too: HNS reserves blocks of 64 ports
# there for kube-proxy's non-DSR load balancers (kubernetes/website#17930, collectlogs'
# reservedports.txt), and Hyper-V and other services reserve their own.
$excluded = 0
foreach ($l in @(netsh int ipv4 show excludedportrange protocol=tcp)) {
    if ($l -match '^\s*(\d+)\s+(\d+)') {
        $lo = [math]::Max([int]$Matches[1], $start); $hi = [math]::Min([int]$Matches[2], $start + $count - 1)
        if ($hi -ge $lo) { $excluded += $hi - $lo + 1 }
    }
}
$global:LASTEXITCODE = 0 # tolerated: no excluded ranges counted
# One pass over the connections: a node out of ports holds 16 k or more of them, and
# Select-Object -Unique compares each object with every one kept so far (quadratic: minutes
# in Windows PowerShell 5.1 at that size, past the snippet's limit). A HashSet[int] counts
# the distinct local ports and a hashtable the connections of each owning process.
$conns = 0
$used = New-Object 'System.Collections.Generic.HashSet[int]'
$owners = @{}
$end = $start + $count
foreach ($c in Get-NetTCPConnection -ErrorAction SilentlyContinue) {
    $conns++
    $port = [int]$c.LocalPort
    if ($port -lt $start -or $port -ge $end) { continue }
    [void]$used.Add($port)
    $owner = [int]$c.OwningProcess
    if ($owners.ContainsKey($owner)) { $owners[$owner]++ } else { $owners[$owner] = 1 }
}
$top = @($owners.GetEnumerator() | Sort-Object Value -Descending | Select-Object -First 5 | ForEach-Object {
        $proc = Get-Process -Id $_.Key -ErrorAction SilentlyContinue
        [pscustomobject]@{ ProcessId = $_.Key; Name = [string]$proc.ProcessName; Count = $_.Value }
    })
# The image filesystem's use (images and their unpacked snapshots), as containerd's CRI
# reports it: cheap, unlike walking C:\ProgramData\containerd. Docker nodes leave it 0.
$imageFS = 0
if ((Get-Service -Name containerd -ErrorAction SilentlyContinue).Status -eq 'Running' -and (Get-Command crictl -ErrorAction SilentlyContinue)) {
    $env:CONTAINER_RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd'
    $env:IMAGE_SERVICE_ENDPOINT = $env:CONTAINER_RUNTIME_ENDPOINT
    $fs = (crictl --timeout 5s imagefsinfo -o json 2>$null) -join "`n"
    $m = [regex]::Match($fs, '"usedBytes"\s*:\s*\{\s*"value"\s*:\s*"?(\d+)')
    if ($m.Success) { $imageFS = [int64]$m.Groups[1].Value }
    $global:LASTEXITCODE = 0 # tolerated: ImageFSUsedBytes stays 0
}
$os = Get-CimInstance Win32_OperatingSystem
$mem = Get-CimInstance Win32_PerfFormattedData_PerfOS_Memory
[pscustomobject]@{
    DynamicPortStart = $start; DynamicPortCount = $count; ExcludedPorts = $excluded
    TCPConnections = $conns; DynamicPortsInUse = $used.Count
    TopOwners = $top
    TotalMemoryKB = [int64]$os.TotalVisibleMemorySize; FreeMemoryKB = [int64]$os.FreePhysicalMemory
    CommittedBytes = [int64]$mem.CommittedBytes; CommitLimit = [int64]$mem.CommitLimit
    ImageFSUsedBytes = $imageFS
} | ConvertTo-Json -Depth 3
