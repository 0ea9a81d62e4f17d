package evidence

import "github.com/wintroubleshoot/wintroubleshoot/evidence/decode"

// FileFirewall is the Windows Firewall as it applies (FM-26 and FM-27). Evidence
// collected before this version lacks it and the probes reading it skip.
const FileFirewall = "firewall.json"

// firewallKeys are this file's keys, in table order (appended to nodeKeys).
func firewallKeys() []Ref { return []Ref{Firewall} }

// Firewall is nodes/<node>/firewall.json.
var Firewall Key[decode.Firewall] = NodeKey(FileFirewall, decode.DecodeFirewall, Meta{
	Command: "`Get-NetFirewallProfile -PolicyStore ActiveStore` (Name, Enabled, DefaultInboundAction), `Get-NetConnectionProfile` (InterfaceAlias, NetworkCategory), and of `Get-NetFirewallRule -PolicyStore ActiveStore -Direction Inbound -Enabled True` the rules whose port filter (`Get-NetFirewallPortFilter -All`) can match TCP 10250 or UDP 4789 and whose program (`Get-NetFirewallApplicationFilter -All`) is Any, System or kubelet.exe: Name, DisplayName, Action, Profile, Protocol, LocalPort, Program, PolicyStoreSourceType; `ConvertTo-Json -Depth 3`, enums as their names",
	Format:  "one object: `Profiles[]` (`Enabled` True/False/NotConfigured or 1/0/2, `DefaultInboundAction` Allow/Block/NotConfigured or 2/4/0), `ConnectionProfiles[]` (`NetworkCategory` Public/Private/DomainAuthenticated or 0/1/2), `Rules[]` (`Action` Allow/Block or 2/4, `Profile` Any or \"Domain, Private\" or the flags' sum, `LocalPort` a port, range, Any, or a list)",
})
