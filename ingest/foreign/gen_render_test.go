package foreign_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// The renderers below print a scenario's evidence as the commands the collectors run
// print it (Windows PowerShell 5.1 on an en-US node), from the scenario's values only;
// a column the scenario has no value for gets the value Windows prints for it by
// default and no probe reads.

// ps51 is what `>` and `>>` write in Windows PowerShell 5.1: UTF-16LE with a BOM, CRLF.
func ps51(s string) []byte {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2+2*len(u))
	b[0], b[1] = 0xFF, 0xFE
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2+2*i:], c)
	}
	return b
}

// nodeFile reads a scenario's node file as UTF-8, ok false when absent or when the
// sweep recorded that it failed (a .err companion).
func nodeFile(t testing.TB, tree fs.FS, node, name string) ([]byte, bool) {
	t.Helper()
	p := evidence.NodeFile(node, name)
	b, err := fs.ReadFile(tree, p)
	if err != nil {
		return nil, false
	}
	if _, err := fs.Stat(tree, p+evidence.ErrSuffix); err == nil {
		return nil, false
	}
	u, err := decode.Text(p, b)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return u, true
}

func items(t testing.TB, name string, b []byte) []map[string]any {
	t.Helper()
	raws, err := decode.Values(name, b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []map[string]any
	for _, r := range raws {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, m)
	}
	return out
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// selectTable is `... | Select a, b, c` at the console: a table of those properties.
func selectTable(recs []map[string]any, cols ...string) string {
	var rows [][]string
	for _, r := range recs {
		var row []string
		for _, c := range cols {
			row = append(row, str(r[c]))
		}
		rows = append(rows, row)
	}
	return paste.FormatTable(cols, rows)
}

// networkTable is collectlogs' `Get-HnsNetwork | Select Name, Type, Id, AddressPrefix`.
func networkTable(recs []map[string]any) string {
	var rows [][]string
	for _, r := range recs {
		var prefixes []string
		if subs, ok := r["Subnets"].([]any); ok {
			for _, s := range subs {
				if m, ok := s.(map[string]any); ok {
					prefixes = append(prefixes, str(m["AddressPrefix"]))
				}
			}
		}
		ap := ""
		if len(prefixes) > 0 {
			ap = "{" + strings.Join(prefixes, ", ") + "}"
		}
		rows = append(rows, []string{str(r["Name"]), str(r["Type"]), str(r["ID"]), ap})
	}
	return paste.FormatTable([]string{"Name", "Type", "Id", "AddressPrefix"}, rows)
}

type addr struct {
	IP     string
	Prefix int
	Alias  string
	Index  int
}

func addresses(t testing.TB, b []byte) []addr {
	var out []addr
	for _, m := range items(t, evidence.FileIPAddresses, b) {
		pl, _ := strconv.Atoi(str(m["PrefixLength"]))
		ix, _ := strconv.Atoi(str(m["ifIndex"]))
		out = append(out, addr{str(m["IPAddress"]), pl, str(m["InterfaceAlias"]), ix})
	}
	return out
}

func mask(bits int) string {
	m := uint32(0xffffffff) << (32 - bits)
	if bits == 0 {
		m = 0
	}
	return fmt.Sprintf("%d.%d.%d.%d", m>>24, m>>16&0xff, m>>8&0xff, m&0xff)
}

// ipconfig is `ipconfig /allcompartments /all` for the default compartment.
func ipconfig(host string, addrs []addr) string {
	var b strings.Builder
	b.WriteString("\nWindows IP Configuration\n\n")
	b.WriteString("==============================================================================\n")
	b.WriteString("Network Information for Compartment 1 (ACTIVE)\n")
	b.WriteString("==============================================================================\n")
	fmt.Fprintf(&b, "   Host Name . . . . . . . . . . . . : %s\n   Primary Dns Suffix  . . . . . . . : \n   Node Type . . . . . . . . . . . . : Hybrid\n   IP Routing Enabled. . . . . . . . : No\n\n", host)
	seen := map[string]bool{}
	for _, a := range addrs {
		if a.Alias == "" || seen[a.Alias] || strings.HasPrefix(a.Alias, "Loopback") {
			continue
		}
		seen[a.Alias] = true
		fmt.Fprintf(&b, "Ethernet adapter %s:\n\n   Connection-specific DNS Suffix  . : \n   Description . . . . . . . . . . . : Hyper-V Virtual Ethernet Adapter\n", a.Alias)
		for _, o := range addrs {
			if o.Alias == a.Alias {
				fmt.Fprintf(&b, "   IPv4 Address. . . . . . . . . . . : %s(Preferred) \n   Subnet Mask . . . . . . . . . . . : %s\n", o.IP, mask(o.Prefix))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// netIPAddressList is `Get-NetIPAddress` (a list view of each address).
func netIPAddressList(addrs []addr) string {
	var recs []paste.Record
	f := func(n, v string) paste.Field {
		return paste.Field{Name: n, Value: paste.Value{Kind: paste.Scalar, Text: v}}
	}
	for _, a := range addrs {
		recs = append(recs, paste.Record{Fields: []paste.Field{f("IPAddress", a.IP), f("InterfaceIndex", strconv.Itoa(a.Index)),
			f("InterfaceAlias", a.Alias), f("AddressFamily", "IPv4"), f("Type", "Unicast"), f("PrefixLength", strconv.Itoa(a.Prefix)),
			f("PrefixOrigin", "Manual"), f("SuffixOrigin", "Manual"), f("AddressState", "Preferred"),
			f("ValidLifetime", "Infinite ([TimeSpan]::MaxValue)"), f("PolicyStore", "ActiveStore")}})
	}
	return paste.FormatList(recs, 0, paste.WordWrap, 0)
}

type route struct {
	Dest, NextHop string
	Index, Metric int
}

func routes(t testing.TB, b []byte) []route {
	var out []route
	for _, m := range items(t, evidence.FileRoutes, b) {
		ix, _ := strconv.Atoi(str(m["ifIndex"]))
		met, _ := strconv.Atoi(str(m["RouteMetric"]))
		out = append(out, route{str(m["DestinationPrefix"]), str(m["NextHop"]), ix, met})
	}
	return out
}

// routePrint is `route print`'s IPv4 table: the interface by its address, On-link for
// a route without a gateway.
func routePrint(rs []route, addrs []addr) string {
	var b strings.Builder
	b.WriteString("===========================================================================\nIPv4 Route Table\n===========================================================================\nActive Routes:\nNetwork Destination        Netmask          Gateway       Interface  Metric\n")
	for _, r := range rs {
		p, err := netip.ParsePrefix(r.Dest)
		if err != nil || !p.Addr().Is4() {
			continue
		}
		ifAddr := "127.0.0.1"
		for _, a := range addrs {
			if a.Index == r.Index {
				ifAddr = a.IP
				break
			}
		}
		gw := r.NextHop
		if gw == "0.0.0.0" || gw == "" {
			gw = "On-link"
		}
		fmt.Fprintf(&b, "%20s %15s %16s %15s %6d\n", p.Addr(), mask(p.Bits()), gw, ifAddr, r.Metric+15)
	}
	b.WriteString("===========================================================================\nPersistent Routes:\n  None\n")
	return b.String()
}

// netRouteTable is `Get-NetRoute`'s default table.
func netRouteTable(rs []route) string {
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{strconv.Itoa(r.Index), r.Dest, r.NextHop, strconv.Itoa(r.Metric), "15", "ActiveStore"})
	}
	return paste.FormatTable([]string{"ifIndex", "DestinationPrefix", "NextHop", "RouteMetric", "ifMetric", "PolicyStore"}, rows)
}

type service struct{ Name, State, StartMode, PathName, PID string }

func services(t testing.TB, b []byte) []service {
	var out []service
	for _, m := range items(t, evidence.FileServices, b) {
		out = append(out, service{str(m["Name"]), str(m["State"]), str(m["StartMode"]), str(m["PathName"]), str(m["ProcessId"])})
	}
	return out
}

// scQueryex is `sc.exe queryex` (the running services only) and then `sc.exe qc` of the
// services collectlogs.ps1 names that the node has.
func scQueryex(svcs []service) string {
	var b strings.Builder
	for _, s := range svcs {
		if s.State != "Running" {
			continue
		}
		fmt.Fprintf(&b, "\nSERVICE_NAME: %s\nDISPLAY_NAME: %s\n        TYPE               : 10  WIN32_OWN_PROCESS\n        STATE              : 4  RUNNING\n                                (STOPPABLE, NOT_PAUSABLE, ACCEPTS_SHUTDOWN)\n        WIN32_EXIT_CODE    : 0  (0x0)\n        SERVICE_EXIT_CODE  : 0  (0x0)\n        CHECKPOINT         : 0x0\n        WAIT_HINT          : 0x0\n        PID                : %s\n        FLAGS              :\n", s.Name, s.Name, s.PID)
	}
	start := map[string]string{"Auto": "2   AUTO_START", "Manual": "3   DEMAND_START", "Disabled": "4   DISABLED"}
	for _, qc := range []string{"hns", "vfpext", "dnscache", "iphlpsvc", "BFE", "Dhcp", "hvsics", "NetSetupSvc", "mpssvc", "nvagent", "nsi", "vmcompute", "SharedAccess", "CmService", "vmms"} {
		for _, s := range svcs {
			if !strings.EqualFold(s.Name, qc) || start[s.StartMode] == "" {
				continue
			}
			fmt.Fprintf(&b, "[SC] QueryServiceConfig SUCCESS\n\nSERVICE_NAME: %s\n        TYPE               : 20  WIN32_SHARE_PROCESS\n        START_TYPE         : %s\n        ERROR_CONTROL      : 1   NORMAL\n        BINARY_PATH_NAME   : %s\n        LOAD_ORDER_GROUP   :\n        TAG                : 0\n        DISPLAY_NAME       : %s\n        DEPENDENCIES       :\n        SERVICE_START_NAME : LocalSystem\n", s.Name, start[s.StartMode], s.PathName, s.Name)
		}
	}
	return b.String()
}

// getServiceTable is collectlogs' `Get-Service hns, vfpext, kubeproxy, tcpip, kubelet,
// containerd, docker -ErrorAction SilentlyContinue`: the services the node has of those.
func getServiceTable(svcs []service) string {
	var rows [][]string
	for _, want := range []string{"hns", "vfpext", "kubeproxy", "tcpip", "kubelet", "containerd", "docker"} {
		for _, s := range svcs {
			if strings.EqualFold(s.Name, want) {
				rows = append(rows, []string{s.State, s.Name, s.Name})
			}
		}
	}
	return paste.FormatTable([]string{"Status", "Name", "DisplayName"}, rows)
}

// jsonAfter is collectlogs' table, then `>> ConvertTo-Json`: the scenario's JSON as it is.
func jsonAfter(table string, j []byte) string {
	return table + string(bytes.TrimSpace(j)) + "\n"
}

// serviceList is `get-service | fl`: Windows PowerShell 5.1's list view of each service
// (no start type: ServiceController shows it only when asked).
func serviceList(svcs []service) string {
	var recs []paste.Record
	f := func(n, v string) paste.Field {
		return paste.Field{Name: n, Value: paste.Value{Kind: paste.Scalar, Text: v}}
	}
	for _, s := range svcs {
		recs = append(recs, paste.Record{Fields: []paste.Field{f("Name", s.Name), f("DisplayName", s.Name), f("Status", s.State),
			{Name: "DependentServices", Value: paste.Value{Kind: paste.Empty}}, {Name: "ServicesDependedOn", Value: paste.Value{Kind: paste.Empty}},
			f("CanPauseAndContinue", "False"), f("CanShutdown", "False"), f("CanStop", map[bool]string{true: "True", false: "False"}[s.State == "Running"]),
			f("ServiceType", "Win32OwnProcess")}})
	}
	return paste.FormatList(recs, 0, paste.WordWrap, 0)
}
