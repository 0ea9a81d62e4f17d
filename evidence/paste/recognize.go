package paste

import (
	"encoding/json"
	"strings"
)

// Part is a recognized piece of a block.
type Part struct {
	Shape   Shape
	Command string // the command line that printed it, when the paste showed it
	Lines   []Line
	List    ListView // list views
	Table   Table    // tables
	// Component is which log a klog block is: "kubelet", "kube-proxy", or "" when the
	// lines do not say.
	Component string
}

// Recognize says what each part of a block is: by its command when the prompt showed
// one, by its shape otherwise (a block without a prompt can hold several outputs, one
// after another, so it is cut where the shape changes).
func (p *Parser) Recognize(b Block) []Part {
	if b.Command != "" {
		cmd := p.Canonical(b.Command)
		// Get-Content of a kubelet or kube-proxy log file is that log, whatever its lines
		// look like: AKS's C:\k\kubeproxy.log holds kubeproxystart.ps1's own output (a
		// table among it), its klog lines go to kubeproxy.err.log (Azure/AgentBaker).
		if m := p.componentLogFile.FindStringSubmatch(cmd); m != nil {
			comp := "kubelet"
			switch low := strings.ToLower(m[1]); {
			case strings.Contains(low, "proxy"):
				comp = "kube-proxy"
			case strings.Contains(low, "flannel"):
				comp = "flanneld"
			}
			return []Part{{Shape: KlogText, Command: b.Command, Lines: b.Lines, Component: comp}}
		}
		if m := p.commandLog.FindStringSubmatch(cmd); m != nil && p.klogShare(b.Lines) {
			comp := strings.ToLower(m[1])
			switch {
			case strings.Contains(comp, "proxy"):
				comp = "kube-proxy"
			case strings.Contains(comp, "flannel"):
				comp = "flanneld"
			}
			return []Part{{Shape: KlogText, Command: b.Command, Lines: b.Lines, Component: comp}}
		}
		for _, c := range p.cmdShapes {
			if c.re.MatchString(cmd) {
				pt := p.shaped(b.Lines, c.shape)
				pt.Command = b.Command
				return []Part{pt}
			}
		}
		if pt := p.byShape(b.Lines); pt.Shape != Unrecognized {
			pt.Command = b.Command
			return []Part{pt}
		}
		return []Part{{Shape: Unrecognized, Command: b.Command, Lines: b.Lines}}
	}
	// No command: group the paragraphs by shape.
	var out []Part
	var run []Line
	var runShape Shape
	runComp := ""
	flush := func() {
		if len(run) == 0 {
			return
		}
		out = append(out, p.byShape(run))
		run = nil
	}
	for _, para := range p.peelProse(Paragraphs(b.Lines)) {
		s := p.byShape(para).Shape
		// A klog header, or lines of another component, start another log (kubelet's
		// after kube-proxy's).
		comp := ""
		if s == KlogText {
			comp = p.component(para)
		}
		if s != runShape || s == Unrecognized || (s == KlogText && (p.klogHeader.MatchString(para[0].Text) ||
			comp != "" && runComp != "" && comp != runComp)) {
			flush()
			runComp = ""
		}
		if comp != "" {
			runComp = comp
		}
		runShape = s
		if len(run) > 0 {
			run = append(run, Line{No: para[0].No - 1})
		}
		run = append(run, para...)
	}
	flush()
	return out
}

// shaped parses lines as the shape their command says they are.
func (p *Parser) shaped(lines []Line, s Shape) Part {
	pt := Part{Shape: s, Lines: lines}
	switch s {
	case HNSNetworkList, HNSEndpointList, HNSPolicyList, ServiceList, ProcessList, ComputerInfo, CurrentVersion:
		pt.List = p.ParseList(lines)
		if len(pt.List.Records) == 0 {
			if t, ok := p.ParseTable(lines); ok && s == ServiceList {
				pt.Shape, pt.Table = ServiceTable, t
			}
		}
	case NetRoutes, NetIPAddresses, NetAdapters, NetIPInterfaces:
		// Get-NetRoute, Get-NetAdapter and Get-NetIPInterface print tables,
		// Get-NetIPAddress a list; Format-* changes either.
		if pt.List = p.ParseList(lines); len(pt.List.Records) == 0 {
			pt.Table, _ = p.ParseTable(lines)
		}
	case OSVersion:
		pt.Table, _ = p.ParseTable(lines)
	case ServiceTable, DockerImages, CrictlImages, KubectlNodes, EventsTable, DockerPs, CrictlPods, CrictlPs, CtrImages, CtrContainers, CtrTasks:
		if s != ServiceTable {
			// CLI tables a terminal cut (Format-Table cuts cells itself, with "...").
			lines, _ = p.unwrapRows(lines)
		}
		if t, ok := p.ParseTable(lines); ok {
			pt.Table = t
		} else if s == ServiceTable {
			pt.Shape, pt.List = ServiceList, p.ParseList(lines)
		}
	case KlogText:
		pt.Component = p.component(lines)
	case KubectlDescribe, DescribePod:
		// The converters read the lines as kubectl printed them.
		pt.Lines = unwrapCut(lines)
	}
	return pt
}

// byShape recognizes lines from what they look like.
func (p *Parser) byShape(lines []Line) Part {
	text := joinLines(lines)
	t := strings.TrimSpace(text)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return Part{Shape: JSONText, Lines: lines}
	}
	for _, c := range []struct {
		match bool
		shape Shape
	}{
		{p.kubeYAML.MatchString(t), YAMLText},
		{p.klogShare(lines), KlogText},
		{p.ipconfigHeader.MatchString(t) || p.ipconfigSection(lines), Ipconfig},
		{p.netshLine.MatchString(t), NetshDump},
		{p.netshShow.MatchString(t), NetshShow},
		{p.winVer.MatchString(t), WinVersion},
		{p.sysinfoHeader.MatchString(t), SystemInfo},
		{p.routeTable.MatchString(t), RoutePrint},
		{p.scService.MatchString(t), ScQuery},
		{p.hnsdiagHeader.MatchString(t) && !strings.Contains(t, " : "), HnsDiag},
		{len(lines) > 0 && p.psErrorLine.MatchString(lines[0].Text), PSError},
		{isDescribe(lines, "Conditions:", "Addresses:") && !hasLine(lines, "Containers:"), KubectlDescribe},
		{isDescribe(lines, "Containers:", "Namespace:"), DescribePod},
		{p.eventsBlock(lines), EventsBlock},
	} {
		if c.match {
			return p.shaped(lines, c.shape)
		}
	}
	if lv := p.ParseList(lines); len(lv.Records) > 0 && len(lv.Leftover)*4 < len(lines) {
		return Part{Shape: listShape(lv.Records[0]), Lines: lines, List: lv}
	}
	if u, cut := p.unwrapRows(lines); cut {
		// A header the terminal cut: the CLIs named here fill their last column on every
		// row (kubectl's <none>, docker's NAMES and SIZE, crictl's ATTEMPT and RUNTIME,
		// ctr's LABELS "-"), so a row's end is known.
		if tb, ok := p.ParseTable(u); ok && cliTable(tableShape(tb)) {
			return p.shaped(lines, tableShape(tb))
		}
	}
	if tb, ok := p.ParseTable(lines); ok && len(tb.Rows) > 0 {
		if s := tableShape(tb); s != OtherTable {
			return p.shaped(lines, s)
		}
		return Part{Shape: OtherTable, Lines: lines, Table: tb}
	}
	if p.allProse(lines) {
		return Part{Shape: Prose, Lines: lines}
	}
	return Part{Shape: Unrecognized, Lines: lines}
}

// peelProse splits off the sentences an engineer wrote around a paste in the same
// paragraph ("Here is the output:", "- First few lines of kubelet.exe error log"), when
// what is left is a known output: those lines are not the output's.
func (p *Parser) peelProse(paras [][]Line) [][]Line {
	var out [][]Line
	for _, para := range paras {
		n := 0
		for n < len(para) && n < 3 && p.proseLine(para[n].Text) {
			n++
		}
		if n == 0 || n == len(para) || p.byShape(para).Shape != Unrecognized || p.byShape(para[n:]).Shape == Unrecognized {
			out = append(out, para)
			continue
		}
		out = append(out, para[:n], para[n:])
	}
	return out
}

func (p *Parser) allProse(lines []Line) bool {
	for _, l := range lines {
		if !blank(l.Text) && !p.proseLine(l.Text) {
			return false
		}
	}
	return len(lines) > 0
}

// proseLine: a sentence, a Markdown heading or list item, not a console line (no
// column padding, no "Name : value").
func (p *Parser) proseLine(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || strings.Contains(t, "  ") || strings.Contains(t, " : ") || p.klogLine.MatchString(t) {
		return false
	}
	if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "**") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return true
	}
	words := strings.Fields(t)
	return len(words) >= 3 && strings.ContainsAny(t[len(t)-1:], ":.?!)") && strings.ToLower(t) != strings.ToUpper(t)
}

// isDescribe: kubectl describe's first line is "Name:", and a section header the kind
// has follows.
func isDescribe(lines []Line, markers ...string) bool {
	if len(lines) == 0 || !strings.HasPrefix(lines[0].Text, "Name:") {
		return false
	}
	for _, m := range markers {
		if hasLine(lines, m) {
			return true
		}
	}
	return false
}

func hasLine(lines []Line, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l.Text, prefix) {
			return true
		}
	}
	return false
}

func joinLines(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func cliTable(s Shape) bool {
	switch s {
	case KubectlNodes, DockerImages, DockerPs, CrictlImages, CrictlPods, CrictlPs, CtrImages, CtrContainers, CtrTasks:
		return true
	}
	return false
}

// eventsBlock: describe's Events section pasted alone ("Events:" and its rows, with or
// without the Type/Reason header), or its rows without even the "Events:" line.
func (p *Parser) eventsBlock(lines []Line) bool {
	rows, other := 0, 0
	for i, l := range lines {
		t := strings.TrimSpace(l.Text)
		switch {
		case i == 0 && strings.HasPrefix(t, "Events:"):
		case p.eventRow.MatchString(l.Text):
			rows++
		case p.eventHeader.MatchString(l.Text) || strings.HasPrefix(t, "----"):
		case rows > 0 && !strings.HasPrefix(l.Text, " ") || rows > 0 && strings.HasPrefix(t, "("):
			// a message going on at column 0, or describe's "(extra info: ...)"
		default:
			other++
		}
	}
	return rows > 0 && other == 0
}

// ipconfigSection: ipconfig's sections pasted without "Windows IP Configuration" (the
// paste starts at an adapter): an adapter's header line alone, or a paragraph mostly of
// labels padded with ". " (the header's paragraph and the section's join into one
// part, as they are one output).
func (p *Parser) ipconfigSection(lines []Line) bool {
	adapters, dotted, other := 0, 0, 0
	for _, l := range lines {
		switch t := strings.TrimRight(l.Text, " "); {
		case blank(t), p.cutMark.MatchString(t):
		case p.ipconfigAdapter.MatchString(t):
			adapters++
		case p.ipconfigDotted.MatchString(t):
			dotted++
		case strings.HasPrefix(t, "    "): // a value continued under the last (DNS servers)
		default:
			other++
		}
	}
	return adapters > 0 && other == 0 || dotted >= 2 && adapters+dotted >= 2*other
}
