package probes

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hostNotShown is the skip for a host.json an import wrote from pasted output
// (systeminfo, ver, [Environment]::OSVersion) that does not show fields the probe needs:
// they are unknown, not zero or empty, so the probe names the commands that show them
// instead of judging a revision 0 or an empty name. Nil when every field is shown.
func (c C) hostNotShown(host decode.Host, path string, fields ...string) *Finding {
	missing := host.Unknown(fields...)
	if len(missing) == 0 {
		return nil
	}
	f := c.Skip(fmt.Sprintf("%s holds what a pasted output showed: %s not shown", path, strings.Join(missing, ", ")), path).
		With("re-collect with: " + hostFieldCommands(missing))
	return &f
}

// hostFieldCommands are the commands that print the host.json fields named, each once.
func hostFieldCommands(fields []string) string {
	var out []string
	add := func(cmd string) {
		for _, c := range out {
			if c == cmd {
				return
			}
		}
		out = append(out, cmd)
	}
	for _, f := range fields {
		switch f {
		case "LastBootUpTime", "CollectedAt":
			add("(Get-CimInstance Win32_OperatingSystem).LastBootUpTime.ToUniversalTime().ToString('o'); (Get-Date).ToUniversalTime().ToString('o')")
		case "ContainersFeature":
			add("Get-CimInstance Win32_OptionalFeature -Filter \"Name='Containers'\" | Select-Object InstallState")
		case "ComputerName", "DnsHostName", "Domain", "PartOfDomain":
			add("Get-CimInstance Win32_ComputerSystem | Select-Object Name, DNSHostName, Domain, PartOfDomain")
		default:
			add("Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion' | Select-Object ProductName, CurrentBuild, UBR, BuildLabEx")
		}
	}
	return strings.Join(out, "; ")
}
