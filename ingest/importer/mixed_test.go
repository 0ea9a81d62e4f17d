package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// console is how the customer's console printed things.
type console struct {
	name   string
	width  int
	wrap   paste.Wrap
	prefix string // put before every line (a serial console)
	prompt string
	nodes  string // how cluster/nodes.json is pasted: "describe", "wide", or "" (kept as JSON)
	routes string // "" for Get-NetRoute, "route-print-de" for a German route print, "netsh" for netsh show route
	// runtime prints a containerd node's images as `ctr -n k8s.io images ls` and its
	// sandboxes as `crictl pods` (kept in the report: no UIDs).
	runtime bool
	// pods prints the cluster's pods and their events as `kubectl describe pods`.
	pods bool
}

func consoles() []console {
	return []console{
		{name: "ps-120", width: 120, wrap: paste.WordWrap, prompt: `PS C:\k> `, nodes: "describe", runtime: true, pods: true},
		{name: "ps-80-lost-indent", width: 80, wrap: paste.LostIndent, prompt: `[win-x]: PS C:\Users\Administrator\Documents> `, nodes: "wide", routes: "netsh"},
		{name: "serial-100-cut", width: 100, wrap: paste.ConsoleCut, prompt: `PS C:\> `,
			prefix: "2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: ", nodes: "yaml", routes: "route-print-de"},
		// No prompt lines at all: the blocks are told apart by their shapes.
		{name: "no-prompts-140", width: 140, wrap: paste.WordWrap, nodes: "describe"},
	}
}

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
	} else if table, ok := ctrImagesTable(t, data); ok && c.runtime {
		b.WriteString(c.run("ctr -n k8s.io images ls") + table)
		replaced = append(replaced, evidence.FileImages)
	}
	if data, ok := read(evidence.FileContainers); ok && c.runtime {
		if table, ok := crictlPodsTable(data); ok {
			b.WriteString(c.run("crictl pods") + table)
		}
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
		switch c.routes {
		case "route-print-de":
			b.WriteString(c.run("route print -4") + routePrintDE(t, routes))
		case "netsh":
			b.WriteString(c.run("netsh interface ipv4 show route") + netshRoutes(routes))
		default:
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
	// The CNI config as Get-Content prints it (a prompt says which file it is).
	if data, ok := read(evidence.FileCNIConfig); ok && c.prompt != "" && len(data) > 0 {
		b.WriteString(c.run(`Get-Content C:\k\cni\config\cni.conf`) + strings.TrimRight(string(data), "\r\n") + "\n")
		replaced = append(replaced, evidence.FileCNIConfig)
	}
	for _, log := range []string{evidence.FileKubeletLog, evidence.FileKubeProxyLog} {
		// A log without klog lines (AKS's C:\k\kubeproxy.log is its start script's own
		// output) is told by its Get-Content command only: without a prompt it is not pasted.
		if data, ok := read(log); ok && len(data) > 0 && (c.prompt != "" || regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`).Match(data)) {
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
			// A partial nodes.json (TestNodeTablePartial) in place of the JSON: the probes
			// judge what the table shows and skip on the rest. The terminal is as narrow
			// as the console and cuts the rows.
			b.WriteString("$ kubectl get nodes -o wide\n" + paste.TerminalWrap(wideNodes(nodes), c.width, true))
			replaced = append(replaced, evidence.PathNodes)
		}
	}
	if c.pods {
		if text, ok := podsAndEvents(t, tree); ok {
			b.WriteString("user@bastion:~$ kubectl describe pods -A\n" + text)
			replaced = append(replaced, evidence.PathEvents)
		}
	}
	text := b.String()
	if c.prefix != "" {
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		text = c.prefix + strings.Join(lines, "\n"+c.prefix) + "\n"
	}
	return text, replaced
}

// TestMixedTranscripts renders every scenario's node evidence as pasted console text,
// imports it, and judges it: every finding must equal the JSON evidence's, or be a skip
// (the paste did not show something), and a paste never fails where JSON does not.
func TestMixedTranscripts(t *testing.T) {
	same, skipped := 0, 0
	imported := map[string]int{} // evidence path (node part dropped) -> transcripts that gave it
	for _, name := range scenarios.Names() {
		tree, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: tree}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range consoles() {
			files := copyTree(t, tree)
			for _, node := range meta.Nodes {
				text, replaced := transcript(t, tree, node, c)
				res, err := importer.Import([]importer.Input{{Name: "paste.txt", Data: []byte(text)}}, importer.Options{Node: node})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range replaced {
					p := evidence.NodeFile(node, r)
					if r == evidence.PathNodes || r == evidence.PathEvents {
						p = r
					}
					if _, ok := res.Files[p]; !ok {
						rep, _ := res.ReportJSON()
						t.Fatalf("%s/%s: %s was pasted but not imported:\n%s", name, c.name, p, rep)
					}
					delete(files, p)
					imported[c.name+" "+r]++
				}
				for p, b := range res.Files {
					files[p] = &fstest.MapFile{Data: b}
				}
			}
			got, err := engine.Analyze(context.Background(), probes.Default(), evidence.Evidence{FS: files}, nil)
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
	// Each way of pasting was rendered and read somewhere: describe pods (events),
	// ctr images, netsh routes, the German route print, the CNI config.
	for _, k := range []string{"ps-120 " + evidence.PathEvents, "ps-120 " + evidence.FileImages, "ps-80-lost-indent " + evidence.FileRoutes,
		"serial-100-cut " + evidence.FileRoutes, "ps-120 " + evidence.FileCNIConfig} {
		if imported[k] == 0 {
			t.Errorf("no transcript imported %s", k)
		}
	}
	t.Logf("imported: %v", imported)
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
