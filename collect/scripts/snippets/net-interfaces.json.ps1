# MTUs. IPInterfaces: the IP-layer MTU (NlMtu) of every IPv4 interface, the containers'
# compartments included (-IncludeAllCompartments, NetTCPIP since Windows Server 2012 R2).
# Adapters: the link MTU (MtuSize) of every adapter; the physical NIC bound to the Hyper-V
# switch has no IP interface of its own, and on Overlay it carries the pods' packets grown
# by the VXLAN header (50 bytes). Enums are printed as their names: PS 5.1 would print
# numbers.
$state = @{ n = 'ConnectionState'; e = { [string]$_.ConnectionState } }
$ip = @(Get-NetIPInterface -AddressFamily IPv4 -IncludeAllCompartments -ErrorAction Stop | Select-Object 'InterfaceAlias', 'ifIndex', 'NlMtu', 'CompartmentId', $state)
$virtual = @{ n = 'Virtual'; e = { [string]$_.Virtual } }
$status = @{ n = 'Status'; e = { [string]$_.Status } }
$ad = @(Get-NetAdapter -ErrorAction SilentlyContinue | Select-Object 'Name', 'InterfaceDescription', 'ifIndex', 'MtuSize', $virtual, $status)
[pscustomobject]@{ IPInterfaces = $ip; Adapters = $ad } | ConvertTo-Json -Depth 3
