package importer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/paste"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/paste/importer"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/probes/engine"
)

// console is how the customer's console printed things.
type console struct {
	name   string
	width  int
	wrap   paste.Wrap
	prefix string // put before every line (a serial console)
	prompt string
	nodes  string // how cluster/nodes.json is pasted: "describe", "wide", or "" (kept as JSON)
	routes string // "" for Get-NetRoute, "route-print-de" for a German route print
}

var consoles = []console{
	{name: "ps-120", width: 120, wrap: paste.WordWrap, prompt: `PS C:\k> `, nodes: "describe"},
	{name: "ps-80-lost-indent", width: 80, wrap: paste.LostIndent, prompt: `[win-x]: PS C:\Users\Administrator\Documents> `, nodes: "wide"},
	{name: "serial-100-cut", width: 100, wrap: paste.ConsoleCut, prompt: `PS C:\> `,
		prefix: "2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: ", nodes: "yaml", routes: "route-print-de"},
	// No prompt lines at all: the blocks are told apart by their shapes.
	{name: "no-prompts-140", width: 140, wrap: paste.WordWrap, nodes: "describe"},
}

var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`)

// run is the prompt line of a command; a paste without prompts has a blank line there.
func (c console) run(cmd string) string {
	if c.prompt == "" {
		return "\n"
	}
	return c.prompt + cmd + "\n"
}

// transcript renders a node's JSON evidence as a console session would show it: HNS
// networks in list view, services and images as tables, the logs as Get-Content
// prints them. It returns the transcript and the evidence names it replaces.
func transcript(t *testing.T, tree fs.FS, node string, c console) (string, []string) {
	t.Helper()
	var b strings.Builder
	var replaced []string
	read := func(name string) ([]byte, bool) {
		p := evidence.NodeFile(node, name)
		if _, err := fs.Stat(tree, p+evidence.ErrSuffix); err == nil {
			return nil, false
		}
		data, err := fs.ReadFile(tree, p)
		if err != nil {
			return nil, false
		}
		// The fixtures hold what PowerShell wrote (UTF-16 from Out-File, BOMs); the console
		// showed text.
		text, err := decode.Text(p, data)
		return text, err == nil
	}
	if data, ok := read(evidence.FileHNSNetworks); ok {
		recs, err := paste.RecordsFromJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(c.run("Get-HnsNetwork") + "\n" + paste.FormatList(recs, c.width, c.wrap, 0))
		replaced = append(replaced, evidence.FileHNSNetworks)
	}
	for _, l := range []struct{ name, cmd string }{
		{evidence.FileProcesses, "Get-CimInstance Win32_Process | ? Name -like 'kube*' | Select Name, ProcessId, CommandLine | Format-List"},
		{evidence.FileHost, "[pscustomobject]@{ComputerName=$env:COMPUTERNAME; CurrentBuild=$cv.CurrentBuild; UBR=$cv.UBR; LastBootUpTime=$boot}"},
	} {
		if data, ok := read(l.name); ok {
			recs, err := paste.RecordsFromJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 && c.prompt == "" {
				// No prompt and no output (no kube process runs): nothing on the
				// console says this command was run, so nothing can be imported.
				continue
			}
			b.WriteString(c.run(l.cmd) + paste.FormatList(recs, c.width, c.wrap, 0))
			replaced = append(replaced, l.name)
		}
	}
	if data, ok := read(evidence.FileServices); ok {
		var svcs []struct{ Name, State, StartMode string }
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
			data = append(append([]byte("["), t...), ']') // one service, PowerShell's bare object (rke2 lists only hns)
		}
		if err := json.Unmarshal(data, &svcs); err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		for _, s := range svcs {
			start := map[string]string{"Auto": "Automatic"}[s.StartMode]
			if start == "" {
				start = s.StartMode
			}
			rows = append(rows, []string{s.State, start, s.Name, s.Name + " service"})
		}
		b.WriteString(c.run("Get-Service docker, containerd, kubelet, kube-proxy, hns -ErrorAction SilentlyContinue | Format-Table Status, StartType, Name, DisplayName"))
		b.WriteString(paste.FormatTable([]string{"Status", "StartType", "Name", "DisplayName"}, rows))
		replaced = append(replaced, evidence.FileServices)
	}
	if data, ok := read(evidence.FileImages); ok && dockerImages(t, data, &b, c) {
		replaced = append(replaced, evidence.FileImages)
	}
	// Without its command line, docker ps may lack -a: the importer leaves it out.
	if data, ok := read(evidence.FileContainers); ok && dockerPs(t, data, &b, c) && c.prompt != "" {
		replaced = append(replaced, evidence.FileContainers)
	}
	if data, ok := read(evidence.FileRoutes); ok {
		var routes []struct {
			DestinationPrefix, NextHop, InterfaceAlias string
			IfIndex                                    int `json:"ifIndex"`
			RouteMetric                                int
		}
		if err := json.Unmarshal(data, &routes); err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		for _, r := range routes {
			rows = append(rows, []string{strconv.Itoa(r.IfIndex), r.DestinationPrefix, r.NextHop, strconv.Itoa(r.RouteMetric), "15", "ActiveStore"})
		}
		if c.routes == "route-print-de" {
			b.WriteString(c.run("route print -4") + routePrintDE(t, routes))
		} else {
			// The default view: no InterfaceAlias, which the report then says.
			b.WriteString(c.run("Get-NetRoute -AddressFamily IPv4"))
			b.WriteString(paste.FormatTable([]string{"ifIndex", "DestinationPrefix", "NextHop", "RouteMetric", "ifMetric", "PolicyStore"}, rows))
		}
		replaced = append(replaced, evidence.FileRoutes)
	}
	if data, ok := read(evidence.FileIPAddresses); ok {
		var addrs []struct {
			IPAddress, InterfaceAlias string
			PrefixLength              int
			IfIndex                   int `json:"ifIndex"`
		}
		if err := json.Unmarshal(data, &addrs); err != nil {
			t.Fatal(err)
		}
		var recs []paste.Record
		for _, a := range addrs {
			recs = append(recs, paste.Record{Fields: []paste.Field{field("IPAddress", a.IPAddress), field("InterfaceIndex", strconv.Itoa(a.IfIndex)),
				field("InterfaceAlias", a.InterfaceAlias), field("AddressFamily", "IPv4"), field("Type", "Unicast"),
				field("PrefixLength", strconv.Itoa(a.PrefixLength)), field("PrefixOrigin", "Manual"), field("AddressState", "Preferred"),
				field("ValidLifetime", "Infinite ([TimeSpan]::MaxValue)"), field("PolicyStore", "ActiveStore")}})
		}
		b.WriteString(c.run("Get-NetIPAddress -AddressFamily IPv4") + paste.FormatList(recs, c.width, c.wrap, 0))
		replaced = append(replaced, evidence.FileIPAddresses)
	}
	for _, log := range []string{evidence.FileKubeletLog, evidence.FileKubeProxyLog} {
		// A log without klog lines (AKS's C:\k\kubeproxy.log is its start script's own
		// output) is told by its Get-Content command only: without a prompt it is not pasted.
		if data, ok := read(log); ok && len(data) > 0 && (c.prompt != "" || klogLine.Match(data)) {
			b.WriteString(c.run(`Get-Content C:\k\`+log+" -Tail 200") + "\n" + string(data))
			if !strings.HasSuffix(string(data), "\n") {
				b.WriteString("\n")
			}
			replaced = append(replaced, log)
		}
	}
	if data, err := fs.ReadFile(tree, evidence.PathNodes); err == nil && c.nodes != "" {
		nodes, err := decode.Nodes(evidence.PathNodes, data)
		if err != nil {
			t.Fatal(err)
		}
		switch c.nodes {
		case "describe":
			b.WriteString("user@bastion:~$ kubectl describe nodes\n" + describeNodes(nodes))
			replaced = append(replaced, evidence.PathNodes)
		case "yaml":
			y, err := yaml.JSONToYAML(data)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(c.run("kubectl get nodes -o yaml") + string(y))
			replaced = append(replaced, evidence.PathNodes)
		default:
			// Imported into the report only (see TestNodeTableNotWritten): nodes.json stays.
			b.WriteString("$ kubectl get nodes -o wide\n" + wideNodes(nodes))
		}
	}
	text := b.String()
	if c.prefix != "" {
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		text = c.prefix + strings.Join(lines, "\n"+c.prefix) + "\n"
	}
	return text, replaced
}

// routePrintDE prints routes the way a German `route print -4` does.
func routePrintDE(t *testing.T, routes []struct {
	DestinationPrefix, NextHop, InterfaceAlias string
	IfIndex                                    int `json:"ifIndex"`
	RouteMetric                                int
}) string {
	var b strings.Builder
	b.WriteString("===========================================================================\nSchnittstellenliste\n 14...00 15 5d 2b 1f 00 ......Hyper-V Virtual Ethernet Adapter #2\n" +
		"===========================================================================\n\nIPv4-Routentabelle\n" +
		"===========================================================================\nAktive Routen:\n")
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "     Netzwerkziel\tNetzwerkmaske\tGateway\tSchnittstelle\tMetrik\t")
	for _, r := range routes {
		p, err := netip.ParsePrefix(r.DestinationPrefix)
		if err != nil {
			t.Fatal(err)
		}
		mask := net.IP(net.CIDRMask(p.Bits(), 32)).String()
		gw := r.NextHop
		if gw == "0.0.0.0" {
			gw = "Auf Verbindung"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t10.240.0.30\t%d\t\n", p.Addr(), mask, gw, r.RouteMetric+15)
	}
	_ = w.Flush()
	b.WriteString("===========================================================================\nStändige Routen:\n  Keine\n")
	return b.String()
}

// dockerPs prints `docker ps -a --no-trunc` for docker's JSON lines; crictl pods
// (another shape) stay JSON.
func dockerPs(t *testing.T, data []byte, b *strings.Builder, c console) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var rows []map[string]string
	for dec.More() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return false
		}
		if _, ok := row["Names"]; !ok {
			return false
		}
		s := map[string]string{}
		for k, v := range row {
			s[k] = fmt.Sprint(v)
		}
		rows = append(rows, s)
	}
	if len(rows) == 0 {
		return false
	}
	b.WriteString(c.run("docker ps -a --no-trunc"))
	w := tabwriter.NewWriter(b, 0, 1, 3, ' ', 0)
	fmt.Fprintln(w, "CONTAINER ID\tIMAGE\tCOMMAND\tCREATED\tSTATUS\tPORTS\tNAMES")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r["ID"], r["Image"], r["Command"], r["RunningFor"], r["Status"], r["Ports"], r["Names"])
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return true
}

func field(name, text string) paste.Field {
	return paste.Field{Name: name, Value: paste.ParseValue(text)}
}

// dockerImages prints `docker images` for docker image inspect evidence; crictl
// evidence (another shape) is left as JSON.
func dockerImages(t *testing.T, data []byte, b *strings.Builder, c console) bool {
	var imgs []struct {
		Id       string
		RepoTags []string
	}
	if err := json.Unmarshal(data, &imgs); err != nil || len(imgs) == 0 || imgs[0].Id == "" {
		return false
	}
	// docker's table writer: text/tabwriter, columns at least 20 wide, 3 spaces apart.
	b.WriteString(c.run("docker images"))
	w := tabwriter.NewWriter(b, 20, 1, 3, ' ', 0)
	fmt.Fprintln(w, "REPOSITORY\tTAG\tIMAGE ID\tCREATED\tSIZE")
	for _, im := range imgs {
		id := strings.TrimPrefix(im.Id, "sha256:")[:12]
		for _, tag := range im.RepoTags {
			i := strings.LastIndex(tag, ":")
			fmt.Fprintf(w, "%s\t%s\t%s\t7 days ago\t258MB\n", tag[:i], tag[i+1:], id)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return true
}

// TestMixedTranscripts renders every scenario's node evidence as pasted console text,
// imports it, and judges it: every finding must equal the JSON evidence's, or be a skip
// (the paste did not show something), and a paste never fails where JSON does not.
func TestMixedTranscripts(t *testing.T) {
	same, skipped := 0, 0
	for _, name := range scenarios.Names() {
		tree, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.Analyze(probes.Default(), collectors.Evidence{FS: tree}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range consoles {
			files := copyTree(t, tree)
			for _, node := range meta.Nodes {
				text, replaced := transcript(t, tree, node, c)
				res, err := importer.Import([]importer.Input{{Name: "paste.txt", Data: []byte(text)}}, importer.Options{Node: node})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range replaced {
					p := evidence.NodeFile(node, r)
					if r == evidence.PathNodes {
						p = r
					}
					if _, ok := res.Files[p]; !ok {
						rep, _ := res.ReportJSON()
						t.Fatalf("%s/%s: %s was pasted but not imported:\n%s", name, c.name, p, rep)
					}
					delete(files, p)
				}
				for p, b := range res.Files {
					files[p] = &fstest.MapFile{Data: b}
				}
			}
			got, err := engine.Analyze(probes.Default(), collectors.Evidence{FS: files}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, k := compare(t, name+"/"+c.name, want, got)
			same, skipped = same+s, skipped+k
		}
	}
	t.Logf("pasted evidence: %d findings equal to the JSON evidence's, %d honest skips", same, skipped)
	if same == 0 {
		t.Fatal("no finding matched: the pasted evidence was not read")
	}
}

func compare(t *testing.T, what string, want, got []probes.Finding) (same, skipped int) {
	t.Helper()
	idx := map[string]probes.Finding{}
	for _, f := range got {
		idx[f.Probe+"/"+f.Node] = f
	}
	for _, w := range want {
		g, ok := idx[w.Probe+"/"+w.Node]
		switch {
		case !ok:
			t.Errorf("%s: %s on %s: no finding from the pasted evidence", what, w.Probe, w.Node)
		case g.Status == w.Status:
			same++
		case g.Status == probes.Skip:
			skipped++
		case g.Status == probes.Fail:
			t.Errorf("%s: %s on %s fails on the paste (%s) but is %s on the JSON evidence", what, w.Probe, w.Node, g.Summary, w.Status)
		default:
			t.Errorf("%s: %s on %s is %s on the paste (%s) but %s on the JSON evidence (%s)", what, w.Probe, w.Node, g.Status, g.Summary, w.Status, w.Summary)
		}
	}
	return same, skipped
}

func copyTree(t *testing.T, tree fs.FS) fstest.MapFS {
	out := fstest.MapFS{}
	err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(tree, p)
		out[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
