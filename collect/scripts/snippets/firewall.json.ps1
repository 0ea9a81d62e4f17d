# wts:may-hang: the firewall cmdlets ask the MpsSvc CIM provider, which takes seconds on nodes with thousands of rules and blocks while the service does not answer.
# The effective Windows Firewall: -PolicyStore ActiveStore is the local rules merged with
# every GPO that applies (Get-NetFirewallRule docs; microsoft/SDN collectlogs.ps1 reads the
# same store), so a domain policy that blocks a port or ignores local rules shows here.
# Profiles: Name, Enabled, DefaultInboundAction (MSFT_NetFirewallProfile). ConnectionProfiles:
# which profile each interface is in (Get-NetConnectionProfile NetworkCategory). Rules: only
# the enabled inbound ones that can match TCP 10250 (the kubelet) or UDP 4789 (VXLAN), allow
# and block alike, with any program or the kubelet's. Enums are printed as their names.
$store = 'ActiveStore'
$profiles = @(Get-NetFirewallProfile -PolicyStore $store -ErrorAction Stop | ForEach-Object {
        [pscustomobject]@{ Name = [string]$_.Name; Enabled = [string]$_.Enabled; DefaultInboundAction = [string]$_.DefaultInboundAction }
    })
$conn = @(Get-NetConnectionProfile -ErrorAction SilentlyContinue | ForEach-Object {
        [pscustomobject]@{ InterfaceAlias = [string]$_.InterfaceAlias; NetworkCategory = [string]$_.NetworkCategory }
    })
# One enumeration per filter class, joined to the rules by InstanceID (a filter belongs to
# exactly one rule, Get-NetFirewallPortFilter docs): asking per rule is one CIM query each.
$ports = @{}
foreach ($f in @(Get-NetFirewallPortFilter -All -PolicyStore $store)) { $ports[$f.InstanceID] = $f }
$apps = @{}
foreach ($f in @(Get-NetFirewallApplicationFilter -All -PolicyStore $store)) { $apps[$f.InstanceID] = $f }
function Test-WtsPort($list, [int]$port) {
    foreach ($p in @($list)) {
        $s = [string]$p
        if ($s -eq 'Any' -or $s -eq "$port") { return $true }
        if ($s -match '^(\d+)-(\d+)$' -and [int]$Matches[1] -le $port -and $port -le [int]$Matches[2]) { return $true }
    }
    return $false
}
$rules = @(Get-NetFirewallRule -PolicyStore $store -Direction Inbound -Enabled True | ForEach-Object {
        $pf = $ports[$_.InstanceID]
        $proto = [string]$pf.Protocol
        $program = [string]$apps[$_.InstanceID].Program
        $tcp = ($proto -eq 'TCP' -or $proto -eq '6' -or $proto -eq 'Any') -and (Test-WtsPort $pf.LocalPort 10250)
        $udp = ($proto -eq 'UDP' -or $proto -eq '17' -or $proto -eq 'Any') -and (Test-WtsPort $pf.LocalPort 4789)
        $anyProgram = $program -eq '' -or $program -eq 'Any' -or $program -eq 'System' -or $program -like '*\kubelet.exe'
        if (($tcp -or $udp) -and $anyProgram) {
            [pscustomobject]@{
                Name = [string]$_.Name; DisplayName = [string]$_.DisplayName; Action = [string]$_.Action
                Profile = [string]$_.Profile; Protocol = $proto; LocalPort = @($pf.LocalPort | ForEach-Object { [string]$_ })
                Program = $program; PolicyStoreSourceType = [string]$_.PolicyStoreSourceType
            }
        }
    })
[pscustomobject]@{ Profiles = $profiles; ConnectionProfiles = $conn; Rules = $rules } | ConvertTo-Json -Depth 3
