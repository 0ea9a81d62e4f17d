package importer

import (
	"net/netip"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// ipconfigAddresses reads `ipconfig [/all]`: each adapter's IPv4 addresses with the
// prefix length from its mask, the adapter's name as its InterfaceAlias. ipconfig does
// not print the interface index.
func (r *reader) ipconfigAddresses(lines []paste.Line) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	alias := ""
	var pending []map[string]any // addresses of this adapter waiting for the mask
	for _, l := range lines {
		if m := r.adapterLine.FindStringSubmatch(l.Text); m != nil {
			alias, pending = strings.TrimSpace(m[1]), nil
			continue
		}
		m := r.ipconfigPair.FindStringSubmatch(strings.TrimRight(l.Text, " "))
		if m == nil || alias == "" {
			continue
		}
		label, val := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		switch {
		case hasLabel(ipv4Labels(), label):
			ip := strings.TrimSpace(strings.Split(val, "(")[0]) // "10.0.0.6(Preferred)"
			if a, err := netip.ParseAddr(ip); err == nil && a.Is4() {
				rec := map[string]any{"IPAddress": ip, "InterfaceAlias": alias}
				out = append(out, rec)
				pending = append(pending, rec)
				missing = append(missing, Missing{Item: "address " + ip, Field: "ifIndex", Why: whyAbsent})
			}
		case hasLabel(maskLabels(), label):
			if bits, ok := maskBits(val); ok {
				for _, rec := range pending {
					rec["PrefixLength"] = bits
				}
				pending = nil
			}
		}
	}
	for _, rec := range out {
		if _, ok := rec["PrefixLength"]; !ok {
			missing = append(missing, Missing{Item: "address " + rec["IPAddress"].(string), Field: "PrefixLength", Why: whyAbsent})
		}
	}
	return out, missing
}

// ipv4Labels are ipconfig's label of an IPv4 address in en, de, zh (and the old
// "IP Address" of Windows Server 2003-era builds).
func ipv4Labels() []string {
	return []string{"IPv4 Address", "IPv4-Adresse", "IPv4 地址", "IP Address", "IP-Adresse",
		"Adresse IPv4", "Dirección IPv4", "Endereço IPv4", "Indirizzo IPv4", "IPv4 アドレス", "IPv4 주소", "IPv4-адрес"}
}

// maskLabels are ipconfig's "Subnet Mask" in the same languages.
func maskLabels() []string {
	return []string{"Subnet Mask", "Subnetzmaske", "子网掩码", "Masque de sous-réseau", "Máscara de subred", "Máscara de Sub-rede",
		"Subnet mask", "サブネット マスク", "서브넷 마스크", "Маска подсети"}
}

func hasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if strings.EqualFold(x, l) {
			return true
		}
	}
	return false
}

// maskBits turns 255.255.240.0 into 20; a mask with holes is not one.
func maskBits(mask string) (int, bool) {
	a, err := netip.ParseAddr(mask)
	if err != nil || !a.Is4() {
		return 0, false
	}
	b := a.As4()
	n := 0
	seenZero := false
	for _, by := range b {
		for i := 7; i >= 0; i-- {
			if by&(1<<i) != 0 {
				if seenZero {
					return 0, false
				}
				n++
			} else {
				seenZero = true
			}
		}
	}
	return n, true
}

// scServices reads `sc query` and `sc qc` blocks: STATE gives Status, START_TYPE the
// StartType, BINARY_PATH_NAME the PathName; what a block does not print stays out.
func (r *reader) scServices(lines []paste.Line) ([]map[string]any, []Missing) {
	var out []map[string]any
	var cur map[string]any
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		if name, ok := strings.CutPrefix(text, "SERVICE_NAME: "); ok {
			cur = map[string]any{"Name": strings.TrimSpace(name)}
			out = append(out, cur)
			continue
		}
		m := r.scPair.FindStringSubmatch(text)
		if m == nil || cur == nil {
			continue
		}
		f := strings.Fields(m[2])
		switch m[1] {
		case "STATE":
			if len(f) >= 2 {
				cur["Status"] = scWord(f[1], map[string]string{"RUNNING": "Running", "STOPPED": "Stopped",
					"START_PENDING": "StartPending", "STOP_PENDING": "StopPending", "PAUSED": "Paused"})
			}
		case "START_TYPE":
			if len(f) >= 2 {
				cur["StartType"] = scWord(f[1], map[string]string{"AUTO_START": "Automatic", "DEMAND_START": "Manual",
					"DISABLED": "Disabled", "BOOT_START": "Boot", "SYSTEM_START": "System"})
			}
		case "BINARY_PATH_NAME":
			cur["PathName"] = strings.TrimSpace(m[2])
		}
	}
	var missing []Missing
	for _, s := range out {
		for _, f := range []string{"Status", "StartType", "PathName"} {
			if _, ok := s[f]; !ok {
				missing = append(missing, Missing{Item: "service " + s["Name"].(string), Field: f, Why: whyAbsent + " (sc query shows the state, sc qc the start type and path)"})
			}
		}
	}
	return out, missing
}

func scWord(w string, names map[string]string) string {
	if n, ok := names[w]; ok {
		return n
	}
	return w
}

// routePrint reads the IPv4 active routes of `route print` (en, de, zh): destination
// and netmask become the prefix, an on-link gateway ("On-link", "Auf Verbindung",
// "在链路上") the 0.0.0.0 Get-NetRoute shows. route print names interfaces by address,
// so InterfaceAlias and ifIndex are not in it, and its Metric is the interface's plus
// the route's, not Get-NetRoute's RouteMetric: all three stay out.
func (r *reader) routePrint(lines []paste.Line) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	in := false
	for _, l := range lines {
		text := strings.TrimSpace(l.Text)
		switch {
		case r.activeRoutes.MatchString(text):
			in = true
			continue
		case !in:
			continue
		case r.routeEnd.MatchString(text):
			in = false
			continue
		}
		f := strings.Fields(text)
		if len(f) < 5 {
			continue
		}
		dest, err1 := netip.ParseAddr(f[0])
		bits, ok := maskBits(f[1])
		if err1 != nil || !ok || !dest.Is4() {
			continue // the header line
		}
		gw := strings.Join(f[2:len(f)-2], " ")
		if a, err := netip.ParseAddr(gw); err != nil || !a.Is4() {
			gw = "0.0.0.0"
		}
		prefix := netip.PrefixFrom(dest, bits).String()
		out = append(out, map[string]any{"DestinationPrefix": prefix, "NextHop": gw})
		missing = append(missing, Missing{Item: "route " + prefix + " via " + f[len(f)-2], Field: "InterfaceAlias, ifIndex, RouteMetric", Why: whyAbsent})
	}
	return out, missing
}

// netshDump reads `netsh dump`'s IPv4 section: the routes and addresses configured
// persistently. What DHCP and HNS set at run time is not in it, so these are values for
// the report, not routes.json or ip-addresses.json.
func (r *reader) netshDump(lines []paste.Line) map[string]any {
	var routes, addrs []map[string]string
	for _, l := range lines {
		t := strings.TrimSpace(l.Text)
		kind := ""
		switch {
		case strings.HasPrefix(t, "add route "):
			kind = "route"
		case strings.HasPrefix(t, "add address "):
			kind = "address"
		default:
			continue
		}
		m := map[string]string{}
		for _, a := range r.netshArg.FindAllStringSubmatch(t, -1) {
			m[a[1]] = strings.Trim(a[2], `"`)
		}
		if kind == "route" {
			routes = append(routes, m)
		} else {
			addrs = append(addrs, m)
		}
	}
	return map[string]any{"routes": routes, "addresses": addrs}
}
