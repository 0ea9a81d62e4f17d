package decode

import (
	"strconv"
	"strings"
)

// Firewall is firewall.json: the Windows Firewall's three profiles as the active policy
// store has them (local settings merged with Group Policy), the profile each network
// connection is in, and the enabled inbound rules that can match the kubelet's TCP 10250
// or VXLAN's UDP 4789 (allow and block rules; any program, or kubelet.exe).
type Firewall struct {
	Profiles           List[FirewallProfile]
	ConnectionProfiles List[ConnectionProfile]
	Rules              List[FirewallRule]
}

// FirewallProfile is one Get-NetFirewallProfile row. Enabled is a GpoBoolean (True,
// False, NotConfigured, or 1, 0, 2 when the enum reached ConvertTo-Json as a number);
// DefaultInboundAction is Allow, Block or NotConfigured (2, 4, 0: MSFT_NetFirewallProfile).
type FirewallProfile struct {
	Name                 Str
	Enabled              Str
	DefaultInboundAction Str
}

// ConnectionProfile is one Get-NetConnectionProfile row: NetworkCategory Public (0),
// Private (1) or DomainAuthenticated (2) names the firewall profile that applies to it.
type ConnectionProfile struct {
	InterfaceAlias  Str
	NetworkCategory Str
}

// FirewallRule is one rule with its port and program filters. Action is Allow (2),
// AllowBypass (3) or Block (4); Profile is Any (0) or the flags Domain (1), Private (2),
// Public (4), as names ("Domain, Private") or their sum (MSFT_NetFirewallRule).
type FirewallRule struct {
	Name                  Str
	DisplayName           Str
	Action                Str
	Profile               Str
	Protocol              Str
	LocalPort             Strings
	Program               Str
	PolicyStoreSourceType Str // Local, GroupPolicy, ... (where the rule came from)
}

// DecodeFirewall reads firewall.json (one object).
func DecodeFirewall(file string, b []byte) (Firewall, error) {
	f, err := Object[Firewall](file, b)
	if err != nil {
		return f, err
	}
	if len(f.Profiles) == 0 {
		return f, fail(file, nil, "firewall.json has no Profiles: is this the firewall.json snippet's output?")
	}
	for i, p := range f.Profiles {
		if p.Bit() == 0 {
			return f, fail(file, nil, "profile %d is named %q, not Domain, Private or Public", i+1, string(p.Name))
		}
	}
	return f, nil
}

// Profile flags (NET_FW_PROFILE_TYPE2 and MSFT_NetFirewallRule.Profiles).
const (
	ProfileDomain  = 1
	ProfilePrivate = 2
	ProfilePublic  = 4
	ProfileAll     = ProfileDomain | ProfilePrivate | ProfilePublic
)

// Bit is the profile's flag, 0 for a name that is none of the three.
func (p FirewallProfile) Bit() int {
	switch b := profileBits(string(p.Name)); b {
	case ProfileDomain, ProfilePrivate, ProfilePublic:
		return b
	}
	return 0
}

// On says whether the profile filters traffic: True, or NotConfigured, which leaves
// Windows' default (on).
func (p FirewallProfile) On() bool {
	switch strings.ToLower(strings.TrimSpace(string(p.Enabled))) {
	case "false", "0":
		return false
	}
	return true
}

// BlocksInbound says whether unsolicited inbound traffic no rule allows is dropped:
// Block, or NotConfigured (Windows' default is Block; INetFwPolicy2 DefaultInboundAction).
func (p FirewallProfile) BlocksInbound() bool {
	switch strings.ToLower(strings.TrimSpace(string(p.DefaultInboundAction))) {
	case "allow", "2":
		return false
	}
	return true
}

// Bit is the firewall profile the connection's network category selects, 0 if unknown.
func (c ConnectionProfile) Bit() int {
	switch strings.ToLower(strings.TrimSpace(string(c.NetworkCategory))) {
	case "public", "0":
		return ProfilePublic
	case "private", "1":
		return ProfilePrivate
	case "domainauthenticated", "domain", "2":
		return ProfileDomain
	}
	return 0
}

// Allows and Blocks tell the rule's action; AllowBypass counts as allow.
func (r FirewallRule) Allows() bool {
	a := strings.ToLower(strings.TrimSpace(string(r.Action)))
	return a == "allow" || a == "allowbypass" || a == "2" || a == "3"
}

func (r FirewallRule) Blocks() bool {
	a := strings.ToLower(strings.TrimSpace(string(r.Action)))
	return a == "block" || a == "4"
}

// Profiles is the set of profiles the rule is in: every one for Any (0) or an empty field.
func (r FirewallRule) Profiles() int {
	s := strings.TrimSpace(string(r.Profile))
	if s == "" || strings.EqualFold(s, "any") || s == "0" {
		return ProfileAll
	}
	return profileBits(s)
}

// Matches says whether the rule covers inbound traffic to the local port over the
// protocol ("TCP" or "UDP"): the protocol by name, number (6, 17) or Any, and a local
// port that is Any, the port, or a range holding it. Keywords such as RPC never match.
func (r FirewallRule) Matches(proto string, port int) bool {
	p := strings.ToUpper(strings.TrimSpace(string(r.Protocol)))
	num := map[string]string{"TCP": "6", "UDP": "17"}[strings.ToUpper(proto)]
	if p != "ANY" && p != strings.ToUpper(proto) && p != num {
		return false
	}
	if len(r.LocalPort) == 0 {
		return true // no port filter: every port
	}
	for _, lp := range r.LocalPort {
		for _, part := range strings.Split(lp, ",") {
			part = strings.TrimSpace(part)
			if strings.EqualFold(part, "any") || part == strconv.Itoa(port) {
				return true
			}
			lo, hi, ok := strings.Cut(part, "-")
			if !ok {
				continue
			}
			l, err1 := strconv.Atoi(strings.TrimSpace(lo))
			h, err2 := strconv.Atoi(strings.TrimSpace(hi))
			if err1 == nil && err2 == nil && l <= port && port <= h {
				return true
			}
		}
	}
	return false
}

// AnyProgram says whether the rule applies to every program (Any, empty, or System for
// kernel-mode listeners such as VXLAN's) rather than one executable.
func (r FirewallRule) AnyProgram() bool {
	p := strings.TrimSpace(string(r.Program))
	return p == "" || strings.EqualFold(p, "any") || strings.EqualFold(p, "system")
}

// ForProgram says whether the rule names the executable (by its file name, as a rule
// with a full path or with %SystemDrive% still matches the same binary).
func (r FirewallRule) ForProgram(exe string) bool {
	p := strings.ToLower(strings.TrimSpace(string(r.Program)))
	return strings.HasSuffix(p, `\`+strings.ToLower(exe)) || p == strings.ToLower(exe)
}

// profileBits parses profile names ("Domain, Private") or a number holding the flags.
func profileBits(s string) int {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n == 0 {
			return ProfileAll
		}
		return n & ProfileAll
	}
	bits := 0
	for _, part := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "domain":
			bits |= ProfileDomain
		case "private":
			bits |= ProfilePrivate
		case "public":
			bits |= ProfilePublic
		case "any":
			bits |= ProfileAll
		}
	}
	return bits
}

// ProfileName is the flag's name.
func ProfileName(bit int) string {
	switch bit {
	case ProfileDomain:
		return "Domain"
	case ProfilePrivate:
		return "Private"
	case ProfilePublic:
		return "Public"
	}
	return "?"
}
