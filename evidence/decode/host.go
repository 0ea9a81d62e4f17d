package decode

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/Microsoft/hcsshim/osversion"
)

// Host is the node's identity and OS build (evidence.FileHost).
type Host struct {
	ComputerName   Str
	DnsHostName    Str
	Domain         Str
	PartOfDomain   bool
	ProductName    Str
	CurrentBuild   Str
	UBR            Int
	BuildLabEx     Str
	LastBootUpTime Str
	// CollectedAt is the node's clock when the snippet ran: the "now" a probe judges
	// uptime against, since probes read no clock. Older evidence lacks it.
	CollectedAt Str
	// ContainersFeature is Win32_OptionalFeature's InstallState of "Containers": 1
	// Enabled, 2 Disabled, 3 Absent, 4 Unknown, 0 when the OS lists no such feature. Nil
	// in evidence collected before the snippet read it.
	ContainersFeature *Int
	// NotShown lists the fields the output an import read did not show (systeminfo,
	// ver, [Environment]::OSVersion, Get-ComputerInfo pasted): they are unknown, not
	// empty or zero. Nil in the host snippet's own output, which prints every field.
	NotShown Strings
}

// Shown says whether the evidence shows field: always, unless an import of pasted
// output left it out (NotShown).
func (h Host) Shown(field string) bool { return !slices.Contains(h.NotShown, field) }

// Unknown lists the fields among fields the evidence does not show.
func (h Host) Unknown(fields ...string) []string {
	var out []string
	for _, f := range fields {
		if !h.Shown(f) {
			out = append(out, f)
		}
	}
	return out
}

// Containers feature states (Win32_OptionalFeature.InstallState; 0 is the snippet's own).
const (
	FeatureNotListed = 0
	FeatureEnabled   = 1
	FeatureDisabled  = 2
	FeatureAbsent    = 3
	FeatureUnknown   = 4
)

// FeatureStateName names an InstallState the way Win32_OptionalFeature's documentation does.
func FeatureStateName(n int64) string {
	switch n {
	case FeatureNotListed:
		return "not listed by the OS"
	case FeatureEnabled:
		return "Enabled"
	case FeatureDisabled:
		return "Disabled"
	case FeatureAbsent:
		return "Absent (its payload is removed)"
	case FeatureUnknown:
		return "Unknown"
	}
	return fmt.Sprintf("InstallState %d", n)
}

// DecodeHost reads host.json.
func DecodeHost(file string, b []byte) (Host, error) {
	h, err := Object[Host](file, b)
	if err != nil {
		return h, err
	}
	if _, err := h.Build(); err != nil {
		return h, fail(file, err, "CurrentBuild %q is not a Windows build number", h.CurrentBuild)
	}
	return h, nil
}

// Build is the OS build number (17763 for Windows Server 2019).
func (h Host) Build() (uint16, error) {
	n, err := strconv.ParseUint(string(h.CurrentBuild), 10, 16)
	return uint16(n), err
}

// Version is the full version, 10.0.<build>.<UBR>; 10.0.<build> when the revision was
// not shown.
func (h Host) Version() string {
	b, _ := h.Build()
	if !h.Shown("UBR") {
		return fmt.Sprintf("10.0.%d", b)
	}
	return fmt.Sprintf("10.0.%d.%d", b, h.UBR)
}

// BootTime parses LastBootUpTime (ISO 8601, as the snippet prints it, or PS 5.1's
// "/Date(ms)/" form when a DateTime was serialized as-is).
func (h Host) BootTime() (time.Time, bool) { return psTime(string(h.LastBootUpTime)) }

// CollectionTime parses CollectedAt the same way.
func (h Host) CollectionTime() (time.Time, bool) { return psTime(string(h.CollectedAt)) }

func psTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	var ms int64
	if _, err := fmt.Sscanf(s, "/Date(%d)/", &ms); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	return time.Time{}, false
}

// BuildName names a Windows build the way people say it, using hcsshim's constants.
func BuildName(build uint16) string {
	switch build {
	case osversion.LTSC2016:
		return "ltsc2016 (1607)"
	case osversion.RS3:
		return "1709"
	case osversion.RS4:
		return "1803"
	case osversion.LTSC2019:
		return "ltsc2019 (1809)"
	case osversion.V1903:
		return "1903"
	case osversion.V1909:
		return "1909"
	case osversion.V2004:
		return "2004"
	case osversion.V20H2:
		return "20H2"
	case osversion.LTSC2022:
		return "ltsc2022"
	case osversion.V23H2:
		return "23H2"
	case osversion.LTSC2025:
		return "ltsc2025"
	}
	return fmt.Sprintf("build %d", build)
}

// ParseVersion reads "10.0.17763", "10.0.17763.1879" or "17763" and returns the build.
func ParseVersion(v string) (uint16, bool) {
	var a, b, c, d int
	if n, _ := fmt.Sscanf(v, "%d.%d.%d.%d", &a, &b, &c, &d); n >= 3 {
		return uint16(c), c > 0 && c < 1<<16
	}
	if n, err := strconv.ParseUint(v, 10, 16); err == nil && n > 1000 {
		return uint16(n), true
	}
	return 0, false
}

// Compatible applies the process-isolation rule: before ltsc2022 the container build must
// equal the host's; from ltsc2022 on a host runs images from the previous LTSC up to its own
// build (the rule hcsshim's CheckHostAndContainerCompat encodes, which builds only on Windows).
func Compatible(host, image uint16) bool {
	if host < osversion.LTSC2022 {
		return host == image
	}
	supported := uint16(osversion.LTSC2022)
	for _, l := range []uint16{osversion.LTSC2025, osversion.LTSC2022} {
		if host > l {
			supported = l
			break
		}
	}
	return supported <= image && image <= host
}
