// Package importer turns pasted console text into an evidence folder in the contract's
// layout: each recognized block becomes the evidence file its JSON command would have
// produced, holding only what the console showed, and import.json says what every block
// was recognized as, what was parsed, what was missing and what was left over.
package importer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
	"github.com/wintroubleshoot/wintroubleshoot/redact"
)

// ReportFile is the import report's name at the root of the evidence folder.
const ReportFile = "import.json"

// Input is one pasted file (Name "-" for stdin).
type Input struct {
	Name string
	Data []byte
}

// Options are the import's settings.
type Options struct {
	// Node names the node the paste came from; "" takes it from the paste (a remoting
	// prompt, a klog header, a describe) or else DefaultNode.
	Node string
	// Redact redacts each paste as it enters, before it is read: the evidence files and
	// import.json (which quotes pasted lines) hold only redacted text. Nil is the
	// default rules; a paste is never read raw.
	Redact *redact.Redactor
}

// DefaultNode is the node name when neither the flag nor the paste gives one.
const DefaultNode = "pasted-node"

// Result is the evidence the paste gave: files by evidence path, and the report.
type Result struct {
	Files  map[string][]byte
	Report Report
	// host is what the blocks showed of the host so far (host.go): several outputs
	// (ipconfig's host name, ver's build) make one host.json.
	host map[string]any
}

// Report is import.json.
type Report struct {
	Node     string        `json:"node"`
	NodeFrom string        `json:"nodeFrom"`
	Blocks   []BlockReport `json:"blocks"`
}

// BlockReport is what one block of the paste was and what became of it.
type BlockReport struct {
	Source     string    `json:"source"`
	Lines      string    `json:"lines"`
	Command    string    `json:"command,omitempty"`
	Recognized string    `json:"recognized"`
	Evidence   string    `json:"evidence,omitempty"`
	Parsed     int       `json:"parsed"` // records, rows or log lines
	Missing    []Missing `json:"missing,omitempty"`
	// Recollect is the exact command that gives the complete evidence, when the paste
	// left something out or was not recognized.
	Recollect  string     `json:"recollect,omitempty"`
	Leftover   []Leftover `json:"leftover,omitempty"`
	FirstLines []string   `json:"firstLines,omitempty"`
	Note       string     `json:"note,omitempty"`
	// Values are what was parsed but not written as evidence (a node table).
	Values any `json:"values,omitempty"`
}

// Leftover is a line no parser understood.
type Leftover struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Import reads the pasted inputs into evidence for one node (and the cluster).
func Import(inputs []Input, opt Options) (Result, error) {
	type piece struct {
		src  string
		part paste.Part
		host string
	}
	r := newReader()
	red := opt.Redact
	if red == nil {
		red = redact.Default()
	}
	var pieces []piece
	for _, in := range inputs {
		for _, b := range r.paste.Split(string(red.Intake(in.Name, in.Data))) {
			for _, p := range r.paste.Recognize(b) {
				pieces = append(pieces, piece{in.Name, p, b.Host})
			}
		}
	}
	res := Result{Files: map[string][]byte{}}
	res.Report.Node, res.Report.NodeFrom = opt.Node, "--node"
	if opt.Node == "" {
		res.Report.Node, res.Report.NodeFrom = DefaultNode, "default (the paste does not name its node: use --node)"
		for _, pc := range pieces {
			if n, from := r.nodeName(pc.part, pc.host); n != "" {
				res.Report.Node, res.Report.NodeFrom = n, from
				break
			}
		}
	}
	if errs := validation.IsDNS1123Subdomain(res.Report.Node); len(errs) > 0 {
		return Result{}, fmt.Errorf("node name %q from %s: %s", res.Report.Node, res.Report.NodeFrom, strings.Join(errs, "; "))
	}
	written := map[string]int{} // evidence path -> block index that wrote it
	for _, pc := range pieces {
		br := r.convert(&res, pc.part, res.Report.Node)
		br.Source = pc.src
		br.Lines = lineRange(pc.part.Lines)
		br.Command = pc.part.Command
		if br.Evidence != "" {
			if prev, ok := written[br.Evidence]; ok && !strings.HasPrefix(br.Note, "merged") {
				res.Report.Blocks[prev].Note = "superseded by a later block of the paste for the same evidence"
			}
			written[br.Evidence] = len(res.Report.Blocks)
		}
		res.Report.Blocks = append(res.Report.Blocks, br)
	}
	return res, nil
}

// nodeName finds the node a block names: a remoting prompt's computer, a klog header's
// machine, a describe's Name.
func (r *reader) nodeName(p paste.Part, host string) (string, string) {
	if host != "" {
		return strings.ToLower(host), "the remoting prompt [" + host + "]"
	}
	for _, l := range p.Lines {
		if m := r.machineLine.FindStringSubmatch(l.Text); m != nil && p.Shape == paste.KlogText && p.Component != "antrea-agent" {
			return strings.ToLower(m[1]), "the klog header (Running on machine)"
		}
	}
	switch {
	case p.Shape == paste.KubectlDescribe && len(p.Lines) > 0:
		if name, ok := strings.CutPrefix(p.Lines[0].Text, "Name:"); ok && strings.TrimSpace(name) != "" {
			return strings.ToLower(strings.TrimSpace(name)), "the describe's Name"
		}
	case p.Shape == paste.KubectlNodes:
		return tableNode(p.Table)
	case strings.EqualFold(strings.TrimSuffix(strings.ToLower(p.Command), ".exe"), "hostname"):
		for _, l := range p.Lines {
			if t := strings.TrimSpace(l.Text); t != "" {
				return strings.ToLower(t), "the output of hostname"
			}
		}
	}
	return "", ""
}

// tableNode is the node a node table is about: its one Windows node (OS-IMAGE), else
// its one node that is not Ready and not a control plane.
func tableNode(t paste.Table) (string, string) {
	var windows, down []string
	for _, r := range t.Rows {
		name := strings.TrimPrefix(t.Get(r, "NAME"), "node/")
		if strings.HasPrefix(strings.ToLower(t.Get(r, "OS-IMAGE")), "windows") {
			windows = append(windows, name)
		}
		roles := t.Get(r, "ROLES")
		if !strings.HasPrefix(t.Get(r, "STATUS"), "Ready") && !strings.Contains(roles, "master") && !strings.Contains(roles, "control-plane") {
			down = append(down, name)
		}
	}
	switch {
	case len(windows) == 1:
		return strings.ToLower(windows[0]), "the node table's one Windows node"
	case len(windows) == 0 && len(down) == 1:
		return strings.ToLower(down[0]), "the node table's one node that is not Ready"
	}
	return "", ""
}

func lineRange(ls []paste.Line) string {
	if len(ls) == 0 {
		return ""
	}
	return strconv.Itoa(ls[0].No) + "-" + strconv.Itoa(ls[len(ls)-1].No)
}

// convert turns one recognized part into its evidence file and says what it did.
func (r *reader) convert(res *Result, p paste.Part, node string) BlockReport {
	br := BlockReport{Recognized: string(p.Shape)}
	if out, done := r.notAList(p, br); done {
		return out
	}
	if out, done := r.delegate(res, p, node, br); done {
		return out
	}
	var key evidence.Ref
	var doc any
	var missing []Missing
	switch p.Shape {
	case paste.HNSNetworkList:
		key = evidence.HNSNetworks
		doc, missing = r.listDoc(p, "network", "ID", "Name", "Type", "Subnets", "State")
	case paste.HNSEndpointList:
		key = evidence.HNSEndpoints
		doc, missing = r.listDoc(p, "endpoint", "ID", "Name", "IPAddress", "VirtualNetwork", "State")
	case paste.HNSPolicyList:
		key = evidence.HNSPolicies
		doc, missing = r.listDoc(p, "policy list", "ID", "Policies", "References")
	case paste.ProcessList:
		key = evidence.Processes
		doc, missing = r.listDoc(p, "process", "Name", "ProcessId", "CommandLine")
	case paste.ServiceList, paste.ServiceTable:
		key = evidence.WindowsServices
		doc, missing = r.services(p)
		br.Parsed = len(p.Table.Rows) + len(p.List.Records)
	case paste.NetRoutes:
		key = evidence.Routes
		doc, missing = r.selected(p, "route", routeColumns())
		br.Parsed = len(p.Table.Rows) + len(p.List.Records)
	case paste.NetIPAddresses:
		key = evidence.IPAddresses
		doc, missing = r.selected(p, "address", addressColumns())
		br.Parsed = len(p.Table.Rows) + len(p.List.Records)
	case paste.Ipconfig:
		key = evidence.IPAddresses
		doc, missing = r.ipconfigAddresses(p.Lines)
		br.Parsed = len(doc.([]map[string]any))
		if name := r.ipconfigHost(p.Lines); name != nil && r.mergeHost(res, node, name) {
			// Its host name joins the build an earlier block showed.
			r.writeHost(res, node, BlockReport{})
		}
	case paste.RoutePrint:
		key = evidence.Routes
		doc, missing = r.routePrint(p.Lines)
		br.Parsed = len(doc.([]map[string]any))
	case paste.ScQuery:
		key = evidence.WindowsServices
		doc, missing = r.scServices(p.Lines)
		br.Parsed = len(doc.([]map[string]any))
	case paste.DockerPs:
		var ok bool
		var rows []map[string]any
		rows, missing, ok = r.containers(p)
		if !ok {
			br.Parsed, br.Recollect = len(p.Table.Rows), evidence.Containers.Meta().Command
			br.Note = "docker ps without -a (or without its command line) does not list stopped containers, so it is not written as " + evidence.FileContainers
			return br
		}
		key, doc = evidence.Containers, rows
		br.Parsed = len(rows)
	case paste.DockerImages, paste.CrictlImages:
		key = evidence.Images
		doc, missing = images(p)
		br.Parsed = len(p.Table.Rows)
	case paste.KubectlDescribe:
		key = evidence.ClusterNodes
		var items []map[string]any
		items, missing = r.nodesFromDescribe(p.Lines)
		doc, br.Parsed = nodeList(items), len(items)
	default:
		return r.unrecognized(p, br)
	}
	if lv := p.List; len(lv.Records) > 0 {
		br.Parsed = len(lv.Records)
		br.Leftover = leftovers(lv.Leftover)
	} else {
		br.Leftover = leftovers(p.Table.Leftover)
	}
	b, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		br.Note = "could not encode the parsed values: " + err.Error()
		return br
	}
	return write(res, key, node, append(b, '\n'), missing, br)
}

// notAList answers for a list-view shape whose paste holds no record: a Format-Table or
// Select of the command, which written as an empty list would read as "none" (no output
// at all is none).
func (r *reader) notAList(p paste.Part, br BlockReport) (BlockReport, bool) {
	switch p.Shape {
	case paste.HNSNetworkList, paste.HNSEndpointList, paste.HNSPolicyList, paste.ProcessList:
		if len(p.List.Records) == 0 && len(firstLines(p.Lines)) > 0 {
			br.FirstLines = firstLines(p.Lines)
			br.Note = "the output is not a list view the importer reads (a Format-Table or Select of the command?): nothing is written, which would read as none"
			br.Recollect = r.recollectFor(p.Shape)
			if t, ok := r.paste.ParseTable(p.Lines); ok && len(t.Rows) > 0 {
				// A Format-Table or Select shows some columns of some objects: the
				// rows go to the report, not to an evidence file that would read as
				// the node's whole list with the other fields empty.
				tp := paste.Part{Table: t}
				br.Values, br.Parsed, br.FirstLines = rowMaps(tp), len(t.Rows), nil
				br.Leftover = leftovers(t.Leftover)
				br.Note = "a table of the command (Format-Table or Select) shows " + strings.Join(t.Columns, ", ") +
					" only: kept in values, not written (the evidence is the objects' every field)"
			}
			return br, true
		}
	}
	return br, false
}

// delegate hands the shapes that write their own files (several, or merged with earlier
// blocks) to their readers.
func (r *reader) delegate(res *Result, p paste.Part, node string, br BlockReport) (BlockReport, bool) {
	switch p.Shape {
	case paste.KubectlNodes, paste.HnsDiag, paste.NetshDump, paste.NetAdapters, paste.NetIPInterfaces:
		return r.valuesBlock(res, p, node, br), true
	case paste.WinVersion, paste.SystemInfo, paste.OSVersion, paste.ComputerInfo, paste.CurrentVersion, paste.HostList:
		return r.hostBlock(res, p, node, br), true
	case paste.DescribePod:
		return r.describePodBlock(res, p, node, br), true
	case paste.EventsBlock:
		return r.eventsBlock(res, p, node, br), true
	case paste.EventsTable:
		return r.eventsTable(res, p, node, br), true
	case paste.CrictlPods, paste.CrictlPs, paste.CtrImages, paste.CtrContainers, paste.CtrTasks:
		return r.runtimeBlock(res, p, node, br), true
	case paste.NetshShow:
		return r.netshBlock(res, p, node, br), true
	case paste.KlogText:
		return r.logBlock(res, p, node, br), true
	case paste.JSONText, paste.YAMLText:
		return r.jsonBlock(res, p, node, br), true
	}
	return br, false
}

func (r *reader) listDoc(p paste.Part, label string, needs ...string) (any, []Missing) {
	recs, missing := r.records(p.List.Records, label, needs)
	if recs == nil {
		recs = []map[string]any{}
	}
	return recs, missing
}

// write stores the file once its own decoder accepts it.
func write(res *Result, key evidence.Ref, node string, b []byte, missing []Missing, br BlockReport) BlockReport {
	path := key.Path(node)
	if err := key.Validate(path, b); err != nil {
		br.Note = "parsed, but the result is not valid evidence: " + err.Error()
		br.Recollect = key.Meta().Command
		return br
	}
	if old, ok := res.Files[path]; ok && key.Meta().Name == evidence.FileServices {
		// sc query shows the state and sc qc the start type: one service, two blocks.
		merged, err := mergeByName(old, b)
		if err != nil {
			br.Note = "could not merge with the earlier services: " + err.Error()
			return br
		}
		b, br.Note = merged, "merged with the services of the earlier blocks"
		missing = stillMissing(missing, b)
	}
	res.Files[path] = b
	br.Evidence, br.Missing = path, missing
	if len(missing) > 0 {
		br.Recollect = key.Meta().Command
	}
	return br
}

func (r *reader) logBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	var key evidence.Ref
	switch p.Component {
	case "kubelet":
		key = evidence.KubeletLog
	case "kube-proxy":
		key = evidence.KubeProxyLog
	case "flanneld":
		key = evidence.LogFlanneld
	default:
		br.Note = "a klog log of a component no probe reads (" + orUnknown(p.Component) + "): kept in this report only"
		br.Parsed = len(p.Lines)
		return br
	}
	text := r.paste.LogText(p.Lines)
	br.Parsed = strings.Count(text, "\n")
	return write(res, key, node, []byte(text), nil, br)
}

func orUnknown(s string) string {
	if s == "" {
		return "the lines do not say which"
	}
	return s
}

func (r *reader) unrecognized(p paste.Part, br BlockReport) BlockReport {
	br.FirstLines = firstLines(p.Lines)
	if br.Recognized == "" {
		br.Recognized = "unrecognized"
	}
	if key, ok := r.keyForCommand(p.Command); ok {
		br.Recollect = key.Meta().Command
		br.Note = "the output of this command is not in a form the importer reads; paste the output of the command in recollect"
		return br
	}
	if p.Shape == paste.Prose {
		br.Recognized, br.FirstLines = string(p.Shape), nil
		br.Note = "sentences the engineer wrote around the output: not read"
		return br
	}
	if p.Shape == paste.PSError {
		br.Note = "the command failed where it ran (its error is in firstLines): no evidence in this block"
		return br
	}
	br.Note = "no evidence is read from this block; `wintroubleshoot probes` lists the evidence each probe reads and the exact command for each"
	return br
}

func firstLines(ls []paste.Line) []string {
	var out []string
	for _, l := range ls {
		if len(out) == 5 {
			break
		}
		if strings.TrimSpace(l.Text) != "" {
			out = append(out, strings.TrimRight(l.Text, " "))
		}
	}
	return out
}

func leftovers(ls []paste.Line) []Leftover {
	var out []Leftover
	for _, l := range ls {
		if strings.TrimSpace(l.Text) != "" {
			out = append(out, Leftover{Line: l.No, Text: strings.TrimRight(l.Text, " ")})
		}
	}
	return out
}

// recollectFor is the command that collects a list shape's evidence.
func (r *reader) recollectFor(s paste.Shape) string {
	switch s {
	case paste.HNSNetworkList:
		return evidence.HNSNetworks.Meta().Command
	case paste.HNSEndpointList:
		return evidence.HNSEndpoints.Meta().Command
	case paste.HNSPolicyList:
		return evidence.HNSPolicies.Meta().Command
	}
	return evidence.Processes.Meta().Command
}
