package importer

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// netshRoutes reads `netsh interface ipv4 show route` (Publish, Type, Met, Prefix, Idx,
// Gateway/Interface Name), taking the columns by position so a localized header reads
// the same. The last column is a gateway for routes through one, and the interface's
// name for on-link routes, so each route lacks one of NextHop and InterfaceAlias, and
// an on-link route's NextHop is the 0.0.0.0 Get-NetRoute shows.
func netshRoutes(t paste.Table) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	if len(t.Columns) < 6 {
		return out, missing
	}
	for _, r := range t.Rows {
		c := r.Cells
		prefix, err := netip.ParsePrefix(c[3])
		if err != nil || !prefix.Addr().Is4() {
			continue
		}
		route := map[string]any{"DestinationPrefix": prefix.String()}
		if n, err := strconv.Atoi(c[2]); err == nil {
			route["RouteMetric"] = n
		}
		if n, err := strconv.Atoi(c[4]); err == nil {
			route["ifIndex"] = n
		}
		item := "route " + prefix.String()
		if gw, err := netip.ParseAddr(c[5]); err == nil && gw.Is4() {
			route["NextHop"] = gw.String()
			missing = append(missing, Missing{Item: item, Field: "InterfaceAlias", Why: whyAbsent + " (netsh shows the gateway; ifIndex names the interface)"})
		} else {
			route["NextHop"], route["InterfaceAlias"] = "0.0.0.0", c[5]
		}
		out = append(out, route)
	}
	return out, missing
}

// netshAddresses reads `netsh interface ipv4 show addresses` (or show config): a
// section per interface, its name in quotes on the section's first line, then
// "Label: value" lines. The labels are localized, so an address is a value that is an
// IPv4 address under a label naming IP, and its prefix the "10.0.0.0/24 (mask ...)"
// value that follows. netsh prints no interface index.
func netshAddresses(lines []paste.Line) ([]map[string]any, []Missing) {
	var out []map[string]any
	var missing []Missing
	alias := ""
	var pending []map[string]any
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		if !strings.HasPrefix(text, " ") && strings.Count(text, `"`) >= 2 {
			alias, pending = text[strings.Index(text, `"`)+1:strings.LastIndex(text, `"`)], nil
			continue
		}
		label, val, ok := strings.Cut(strings.TrimSpace(text), ":")
		if !ok || alias == "" {
			continue
		}
		val = strings.TrimSpace(val)
		first := strings.Fields(val + " ")
		if len(first) == 0 {
			continue
		}
		if a, err := netip.ParseAddr(first[0]); err == nil && a.Is4() && strings.Contains(strings.ToUpper(label), "IP") {
			rec := map[string]any{"IPAddress": a.String(), "InterfaceAlias": alias}
			out, pending = append(out, rec), append(pending, rec)
			missing = append(missing, Missing{Item: "address " + a.String(), Field: "ifIndex", Why: whyAbsent})
			continue
		}
		if p, err := netip.ParsePrefix(first[0]); err == nil && p.Addr().Is4() {
			for _, rec := range pending {
				rec["PrefixLength"] = p.Bits()
			}
			pending = nil
		}
	}
	for _, rec := range out {
		if _, ok := rec["PrefixLength"]; !ok {
			missing = append(missing, Missing{Item: "address " + rec["IPAddress"].(string), Field: "PrefixLength", Why: whyAbsent})
		}
	}
	return out, missing
}

// netshBlock converts `netsh interface ipv4 show ...`: routes and addresses become
// evidence, the interface and subinterface tables (index, metric, MTU, state) values.
func (r *reader) netshBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	t, hasTable := r.paste.ParseTable(p.Lines)
	var key evidence.Ref
	var doc []map[string]any
	var missing []Missing
	switch {
	case hasTable && len(t.Columns) >= 6 && len(t.Rows) > 0 && isPrefix(t.Rows[0].Cells[3]):
		// The route table, told by its fourth column's values, whatever the header's
		// language.
		key = evidence.Routes
		doc, missing = netshRoutes(t)
	case hasTable && len(t.Rows) > 0:
		br.Values, br.Parsed = rowMaps(paste.Part{Table: t}, "Idx", "Met", "MTU", "MediaSenseState", "Bytes In", "Bytes Out"), len(t.Rows)
		br.Leftover = leftovers(t.Leftover)
		br.Note = "the interface table (index, metric, MTU, state) is no evidence file: kept in values"
		return br
	default:
		key = evidence.IPAddresses
		doc, missing = netshAddresses(p.Lines)
	}
	if len(doc) == 0 {
		return r.unrecognized(p, br)
	}
	br.Parsed = len(doc)
	return writeJSON(res, key, node, doc, missing, br)
}

// hnsdiag reads `hnsdiag list networks|endpoints|loadbalancers|all`: sections headed
// "Networks:", "Endpoints:", "LoadBalancers:", "Namespaces:" (or none, for one list),
// each a header whose column names start the columns (Name, ID, Virtual Network Name),
// the load balancers' columns split at " | ".
func hnsdiag(lines []paste.Line) map[string]any {
	out := map[string]any{}
	section := ""
	var starts []int
	var cols []string
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		t := strings.TrimSpace(text)
		switch {
		case t == "":
			continue
		case strings.HasSuffix(t, ":") && !strings.Contains(t, " "):
			section, starts, cols = strings.ToLower(strings.TrimSuffix(t, ":")), nil, nil
			continue
		case cols == nil:
			cols, starts = headerColumns(text)
			if section == "" {
				section = map[bool]string{true: "endpoints", false: "networks"}[len(cols) > 2]
			}
			continue
		}
		row := map[string]any{}
		var cells []string
		if strings.Contains(text, " | ") {
			for _, c := range strings.Split(text, "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
		} else {
			for i, s := range starts {
				end := len(text)
				if i+1 < len(starts) && starts[i+1] < len(text) {
					end = starts[i+1]
				}
				if s < len(text) {
					cells = append(cells, strings.TrimSpace(text[s:end]))
				}
			}
		}
		for i, c := range cells {
			if i < len(cols) {
				row[cols[i]] = c
			}
		}
		list, _ := out[section].([]map[string]any)
		out[section] = append(list, row)
	}
	return out
}

// headerColumns cuts a header at runs of two spaces (or at " | "): the names and where
// each column starts.
func headerColumns(h string) ([]string, []int) {
	var names []string
	var starts []int
	if strings.Contains(h, "|") {
		for _, c := range strings.Split(h, "|") {
			names = append(names, strings.TrimSpace(c))
		}
		return names, nil
	}
	i := 0
	for i < len(h) {
		for i < len(h) && h[i] == ' ' {
			i++
		}
		if i >= len(h) {
			break
		}
		j := i
		for j < len(h) && !(h[j] == ' ' && (j+1 >= len(h) || h[j+1] == ' ')) {
			j++
		}
		names, starts = append(names, h[i:j]), append(starts, i)
		i = j
	}
	return names, starts
}

// systeminfo reads systeminfo's "Label:   value" lines (labels localized, kept as
// printed), a list's further items on indented lines, and the build from OS Version.
func (r *reader) systeminfo(lines []paste.Line) map[string]any {
	out := map[string]any{}
	last := ""
	for _, l := range lines {
		text := strings.TrimRight(l.Text, " ")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if !strings.HasPrefix(text, " ") {
			if label, val, ok := strings.Cut(text, ":"); ok {
				last = strings.TrimSpace(label)
				out[last] = strings.TrimSpace(val)
				continue
			}
		}
		if last != "" {
			prev, _ := out[last].(string)
			if list, ok := out[last].([]string); ok {
				out[last] = append(list, strings.TrimSpace(text))
			} else {
				out[last] = []string{prev, strings.TrimSpace(text)}
			}
		}
	}
	return out
}

func isPrefix(s string) bool {
	p, err := netip.ParsePrefix(s)
	return err == nil && p.Addr().Is4()
}
