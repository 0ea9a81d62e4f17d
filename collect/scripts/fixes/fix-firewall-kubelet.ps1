# Allow inbound TCP 10250 to the kubelet, the rule kubernetes-sigs/sig-windows-tools
# hostprocess/PrepareNode.ps1 creates. An existing rule named kubelet (disabled, or made
# for another port) is enabled and set to the port instead of duplicated. Prints the rule
# as it now is.
$r = Get-NetFirewallRule -Name kubelet -ErrorAction SilentlyContinue
if ($r) {
    Set-NetFirewallRule -Name kubelet -Enabled True -Direction Inbound -Action Allow -Protocol TCP -LocalPort 10250 -ErrorAction Stop
} else {
    New-NetFirewallRule -Name kubelet -DisplayName 'kubelet' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250 -ErrorAction Stop | Out-Null
}
Get-NetFirewallRule -Name kubelet | Select-Object 'Name', 'Enabled', 'Direction', 'Action'
