# wts:may-hang: HNS calls and vfpctrl block while HNS or the virtual switch is wedged.
# The VFP port state of each local HNS endpoint, as microsoft/SDN networkhealth.ps1
# (PopulateEndpointData, EndpointVfpPortStateTest) reads it: the port is the endpoint's
# "Endpoint Port" allocator (Resources.Allocators, Tag, EndpointPortGuid; the v1 schema,
# see Use-WtsHns), its state `vfpctrl.exe /port <guid> /get-port-state`, whose lines are
# "Name : TRUE|FALSE" ("Blocked : FALSE" on a healthy port; SdnDiagnostics
# Get-SdnVfpPortState reads the same lines, and a first line "ERROR: ..." on failure).
# Blocked is null when no Blocked line came back; Error then holds vfpctrl's first line.
# At most 110 endpoints (the kubelet's default maxPods), remote endpoints skipped.
Use-WtsHns -Command 'Get-HnsEndpoint'
$vfp = Get-Command -Name vfpctrl.exe -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $vfp) { throw 'vfpctrl.exe is not on this node' }
$local = @(Get-HnsEndpoint | Where-Object { $_.IsRemoteEndpoint -ne $true })
$ports = foreach ($ep in ($local | Select-Object -First 110)) {
    $row = [ordered]@{ EndpointId = [string]$ep.ID; IPAddress = [string]$ep.IPAddress; Port = ''; Blocked = $null; Error = '' }
    $alloc = @($ep.Resources.Allocators) | Where-Object { $_.Tag -eq 'Endpoint Port' } | Select-Object -First 1
    if ($alloc) { $row.Port = [string]$alloc.EndpointPortGuid }
    if (-not $row.Port) {
        $row.Error = 'no Endpoint Port allocator'
    } else {
        $lines = @(& $vfp.Path /port $row.Port /get-port-state 2>&1 | ForEach-Object { [string]$_ })
        # A port vfpctrl cannot read is this row's Error, not the frame's failure.
        $global:LASTEXITCODE = 0
        $b = $lines | Select-String -Pattern '^\s*Blocked\s*:\s*(TRUE|FALSE)\s*$' | Select-Object -First 1
        if ($b) {
            $row.Blocked = $b.Matches[0].Groups[1].Value -eq 'TRUE'
        } else {
            $first = [string]($lines | Where-Object { $_.Trim() } | Select-Object -First 1)
            if (-not $first) { $first = 'vfpctrl printed nothing' }
            if ($first.Length -gt 200) { $first = $first.Substring(0, 200) }
            $row.Error = $first
        }
    }
    [pscustomobject]$row
}
[pscustomobject]@{ Vfpctrl = [string]$vfp.Path; LocalEndpoints = $local.Count; Ports = @($ports) } | ConvertTo-Json -Depth 3
