package paste

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Shape names what a block of pasted text is, as a support engineer would say it.
type Shape string

const (
	HNSNetworkList  Shape = "Get-HnsNetwork list view"
	HNSEndpointList Shape = "Get-HnsEndpoint list view"
	HNSPolicyList   Shape = "Get-HnsPolicyList list view"
	ServiceList     Shape = "Get-Service list view"
	ServiceTable    Shape = "Get-Service table"
	DockerImages    Shape = "docker images table"
	CrictlImages    Shape = "crictl images table"
	DockerPs        Shape = "docker ps table"
	ProcessList     Shape = "process list view (Name, ProcessId, CommandLine)"
	HostList        Shape = "host facts list view (ComputerName, CurrentBuild, ...)"
	KubectlNodes    Shape = "kubectl get nodes table"
	KubectlDescribe Shape = "kubectl describe node"
	KlogText        Shape = "klog log"
	JSONText        Shape = "JSON"
	YAMLText        Shape = "kubectl YAML"
	NetRoutes       Shape = "Get-NetRoute output"
	NetIPAddresses  Shape = "Get-NetIPAddress output"
	Ipconfig        Shape = "ipconfig output"
	ScQuery         Shape = "sc query / sc qc output"
	RoutePrint      Shape = "route print output"
	HnsDiag         Shape = "hnsdiag list output"
	NetshDump       Shape = "netsh dump (IPv4)"
	WinVersion      Shape = "Windows version output (ver, systeminfo)"
	OtherList       Shape = "a PowerShell list view of another command"
	OtherTable      Shape = "a table of another command"
	PSError         Shape = "a PowerShell error"
	Unrecognized    Shape = ""
)

const (
	kubeletLogHint         = "kubelet"
	kubeProxyLogHint       = "kube-proxy"
	describeNodeHeader     = "Name:"
	describeNodeMarker     = "Conditions:"
	describeNodeAddrMarker = "Addresses:"
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

var (
	// ipconfigHeader is ipconfig's first line in English, German and Chinese.
	ipconfigHeader = regexp.MustCompile(`^(?:Windows IP Configuration|Windows-IP-Konfiguration|Windows IP 配置)`)
	scService      = regexp.MustCompile(`^SERVICE_NAME: \S`)
	netshLine      = regexp.MustCompile(`(?m)^\s*(?:add route prefix=|add address name=|pushd interface ipv4)`)
	winVer         = regexp.MustCompile(`^Microsoft Windows \[(?:Version|版本) \d+\.\d+\.\d+(?:\.\d+)?\]`)
	routeTable     = regexp.MustCompile(`(?m)^(?:IPv4 Route Table|IPv4-Routentabelle|IPv4 路由表)`)
	// kubeYAML: what kubectl -o yaml prints first.
	kubeYAML         = regexp.MustCompile(`^apiVersion: \S+\n(?:.*\n)*?kind: \S+`)
	klogLine         = regexp.MustCompile(`^[IWEF]?\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] `)
	componentLogFile = regexp.MustCompile(`(?i)^(?:get-content|gc|cat|type)\b.*?\\(kube-?proxy|kubelet)[^\\/\s'"]*\.log\b`)
	cmdShape         = []struct {
		re    *regexp.Regexp
		shape Shape
	}{
		{regexp.MustCompile(`(?i)convertto-json|-o ?json|--output[= ]json`), JSONText},
		{regexp.MustCompile(`(?i)kubectl.*(?:-o ?yaml|--output[= ]yaml)`), YAMLText},
		{regexp.MustCompile(`(?i)win32_process|get-process`), ProcessList},
		{regexp.MustCompile(`(?i)get-hnsnetwork`), HNSNetworkList},
		{regexp.MustCompile(`(?i)get-hnsendpoint`), HNSEndpointList},
		{regexp.MustCompile(`(?i)get-hnspolicylist`), HNSPolicyList},
		{regexp.MustCompile(`(?i)get-service.*(?:format-list|\bfl\b)`), ServiceList},
		{regexp.MustCompile(`(?i)get-service`), ServiceTable},
		{regexp.MustCompile(`(?i)docker(?:\.exe)? (?:images|image ls)`), DockerImages},
		{regexp.MustCompile(`(?i)get-netroute`), NetRoutes},
		{regexp.MustCompile(`(?i)^ipconfig(?:\.exe)?\b`), Ipconfig},
		{regexp.MustCompile(`(?i)^hnsdiag(?:\.exe)? list\b`), HnsDiag},
		{regexp.MustCompile(`(?i)^netsh(?:\.exe)? (?:dump|interface ipv4 (?:dump|show))\b`), NetshDump},
		{regexp.MustCompile(`(?i)^(?:cmd(?:\.exe)? /c ver|ver|systeminfo(?:\.exe)?)\s*$`), WinVersion},
		{regexp.MustCompile(`(?i)^(?:route(?:\.exe)? print|netstat(?:\.exe)? -rn?)\b`), RoutePrint},
		{regexp.MustCompile(`(?i)^sc(?:\.exe)? (?:query|queryex|qc)\b`), ScQuery},
		{regexp.MustCompile(`(?i)get-netipaddress`), NetIPAddresses},
		{regexp.MustCompile(`(?i)crictl(?:\.exe)? images`), CrictlImages},
		{regexp.MustCompile(`(?i)docker(?:\.exe)? (?:ps|container ls)\b`), DockerPs},
		{regexp.MustCompile(`(?i)kubectl(?:\.exe)? describe (?:nodes?|no)\b`), KubectlDescribe},
		{regexp.MustCompile(`(?i)kubectl(?:\.exe)? get (?:nodes?|no)\b`), KubectlNodes},
	}
)

// Recognize says what each part of a block is: by its command when the prompt showed
// one, by its shape otherwise (a block without a prompt can hold several outputs, one
// after another, so it is cut where the shape changes).
func Recognize(b Block) []Part {
	if b.Command != "" {
		// Get-Content of a kubelet or kube-proxy log file is that log, whatever its lines
		// look like: AKS's C:\k\kubeproxy.log holds kubeproxystart.ps1's own output (a
		// table among it), its klog lines go to kubeproxy.err.log (Azure/AgentBaker).
		if m := componentLogFile.FindStringSubmatch(b.Command); m != nil {
			comp := kubeletLogHint
			if strings.Contains(strings.ToLower(m[1]), "proxy") {
				comp = kubeProxyLogHint
			}
			return []Part{{Shape: KlogText, Command: b.Command, Lines: b.Lines, Component: comp}}
		}
		for _, c := range cmdShape {
			if c.re.MatchString(b.Command) {
				p := shaped(b.Lines, c.shape)
				p.Command = b.Command
				return []Part{p}
			}
		}
		if p := byShape(b.Lines); p.Shape != Unrecognized {
			p.Command = b.Command
			return []Part{p}
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
		out = append(out, byShape(run))
		run = nil
	}
	for _, para := range Paragraphs(b.Lines) {
		s := byShape(para).Shape
		// A klog header, or lines of another component, start another log (kubelet's
		// after kube-proxy's).
		comp := ""
		if s == KlogText {
			comp = component(para)
		}
		if s != runShape || s == Unrecognized || (s == KlogText && (klogHeader.MatchString(para[0].Text) ||
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
func shaped(lines []Line, s Shape) Part {
	p := Part{Shape: s, Lines: lines}
	switch s {
	case HNSNetworkList, HNSEndpointList, HNSPolicyList, ServiceList, ProcessList:
		p.List = ParseList(lines)
		if len(p.List.Records) == 0 {
			if t, ok := ParseTable(lines); ok && s == ServiceList {
				p.Shape, p.Table = ServiceTable, t
			}
		}
	case NetRoutes, NetIPAddresses:
		// Get-NetRoute prints a table, Get-NetIPAddress a list; Format-* changes either.
		if p.List = ParseList(lines); len(p.List.Records) == 0 {
			p.Table, _ = ParseTable(lines)
		}
	case ServiceTable, DockerImages, CrictlImages, KubectlNodes, DockerPs:
		if t, ok := ParseTable(lines); ok {
			p.Table = t
		} else if s == ServiceTable {
			p.Shape, p.List = ServiceList, ParseList(lines)
		}
	case KlogText:
		p.Component = component(lines)
	}
	return p
}

// byShape recognizes lines from what they look like.
func byShape(lines []Line) Part {
	text := joinLines(lines)
	t := strings.TrimSpace(text)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return Part{Shape: JSONText, Lines: lines}
	}
	if kubeYAML.MatchString(t) {
		return Part{Shape: YAMLText, Lines: lines}
	}
	if klogShare(lines) {
		return shaped(lines, KlogText)
	}
	if ipconfigHeader.MatchString(t) {
		return Part{Shape: Ipconfig, Lines: lines}
	}
	if netshLine.MatchString(t) {
		return Part{Shape: NetshDump, Lines: lines}
	}
	if winVer.MatchString(t) {
		return Part{Shape: WinVersion, Lines: lines}
	}
	if routeTable.MatchString(t) {
		return Part{Shape: RoutePrint, Lines: lines}
	}
	if scService.MatchString(t) {
		return Part{Shape: ScQuery, Lines: lines}
	}
	if isPSError(lines) {
		return Part{Shape: PSError, Lines: lines}
	}
	if isDescribeNode(lines) {
		return Part{Shape: KubectlDescribe, Lines: lines}
	}
	if lv := ParseList(lines); len(lv.Records) > 0 && len(lv.Leftover)*4 < len(lines) {
		p := Part{Shape: listShape(lv.Records[0]), Lines: lines, List: lv}
		return p
	}
	if tb, ok := ParseTable(lines); ok && len(tb.Rows) > 0 {
		return Part{Shape: tableShape(tb), Lines: lines, Table: tb}
	}
	return Part{Shape: Unrecognized, Lines: lines}
}

func listShape(r Record) Shape {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := r.Get(n); !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("ProcessId", "CommandLine"):
		return ProcessList
	case has("ComputerName", "CurrentBuild") || has("ComputerName", "ProductName", "LastBootUpTime"):
		return HostList
	case has("Name", "State", "StartMode"):
		return ServiceList
	case has("IPAddress", "PrefixLength", "AddressFamily"):
		return NetIPAddresses
	case has("DestinationPrefix", "NextHop"):
		return NetRoutes
	case has("VirtualNetwork") || has("IPAddress", "MacAddress") || has("IsRemoteEndpoint"):
		return HNSEndpointList
	case has("References") || has("Policies", "IsApplied"):
		return HNSPolicyList
	case has("Subnets") || has("ID", "Type", "Extensions") || has("ManagementIP") || has("MacPools"):
		return HNSNetworkList
	case has("Status", "Name", "DisplayName") || has("Name", "StartType", "Status"):
		return ServiceList
	}
	return OtherList
}

func tableShape(t Table) Shape {
	switch {
	case t.Has("REPOSITORY", "TAG", "IMAGE ID"):
		return DockerImages
	case t.Has("CONTAINER ID", "NAMES"):
		return DockerPs
	case t.Has("IMAGE", "TAG", "IMAGE ID"):
		return CrictlImages
	case t.Has("NAME", "STATUS", "ROLES", "VERSION"):
		return KubectlNodes
	case t.Has("DestinationPrefix", "NextHop"):
		return NetRoutes
	case t.Has("IPAddress", "PrefixLength"):
		return NetIPAddresses
	case t.Has("Status", "Name", "DisplayName") || t.Has("Status", "Name", "StartType"):
		return ServiceTable
	}
	return OtherTable
}

var klogHeader = regexp.MustCompile(`^(?:Log file created at:|Running on machine:|Binary: Built with|Log line format:)`)

// klogShare: a klog file starts (after its 4-line header) with a klog line; what follows
// can be anything a message printed across lines (kube-proxy's pretty-printed policies).
func klogShare(lines []Line) bool {
	for _, l := range lines {
		switch {
		case blank(l.Text) || klogHeader.MatchString(l.Text):
			continue
		case klogLine.MatchString(stripLogPrefix(l.Text)):
			return true
		}
		return false
	}
	return false
}

var (
	klogFile    = regexp.MustCompile(`^[IWEF]?\d{4} \S+ +\d+ ([\w.-]+)\.go:\d+\]`)
	proxyFiles  = regexp.MustCompile(`^(?:proxier|server_windows|hns|hnsV[12]|winkernel|proxy_.*)$`)
	kubeletFile = regexp.MustCompile(`^(?:kubelet.*|kuberuntime.*|docker_.*|cni.*|perfcounter.*|pod_workers|container_manager.*|eviction_manager|volume_manager|reconciler|remote_runtime|remote_image|pleg|generic)$`)
)

// component tells a kubelet log from a kube-proxy log by the source files its klog
// lines name (proxier.go, kubelet_node_status.go), and an Antrea agent's by its name;
// the messages alone would mislead (a kubelet logs kube-proxy's pod by name).
func component(lines []Line) string {
	proxy, kubelet, antrea := 0, 0, 0
	for _, l := range lines {
		if strings.Contains(strings.ToLower(l.Text), "antrea") {
			antrea++
		}
		m := klogFile.FindStringSubmatch(stripLogPrefix(l.Text))
		switch {
		case m == nil:
		case proxyFiles.MatchString(m[1]):
			proxy++
		case kubeletFile.MatchString(m[1]):
			kubelet++
		}
	}
	switch {
	case antrea > 0 && antrea >= proxy && antrea >= kubelet:
		return "antrea-agent"
	case proxy > kubelet:
		return kubeProxyLogHint
	case kubelet > proxy:
		return kubeletLogHint
	}
	return ""
}

// psErrorLine is how PowerShell prints an error record: "Verb-Noun : message", then
// "+ CategoryInfo" and "+ FullyQualifiedErrorId" (localized messages, English names).
var psErrorLine = regexp.MustCompile(`^[A-Z][a-z]+-[A-Za-z]+ : \S|^\s*\+ (?:CategoryInfo|FullyQualifiedErrorId) +: `)

func isPSError(lines []Line) bool {
	return len(lines) > 0 && psErrorLine.MatchString(lines[0].Text)
}

func isDescribeNode(lines []Line) bool {
	if len(lines) == 0 || !strings.HasPrefix(lines[0].Text, describeNodeHeader) {
		return false
	}
	for _, l := range lines {
		if strings.HasPrefix(l.Text, describeNodeMarker) || strings.HasPrefix(l.Text, describeNodeAddrMarker) {
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

// stripLogPrefix drops what a relay put before a log line: an RFC 3339 timestamp
// (kubectl logs --timestamps, a log shipper).
func stripLogPrefix(s string) string {
	if loc := timestampLn.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// joinedKlog finds a klog line a terminal copy glued onto the previous one, after
// the padding that filled the previous line to the console's width.
var joinedKlog = regexp.MustCompile(`\s{2,}[IWEF]?\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] `)

// LogText is a log block's text with relay prefixes stripped and lines a console copy
// joined split again, one log line per line.
func LogText(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		t := stripLogPrefix(strings.TrimRight(l.Text, " "))
		for {
			loc := joinedKlog.FindStringIndex(t)
			if loc == nil {
				break
			}
			head := t[:loc[0]]
			b.WriteString(head + "\n")
			t = strings.TrimLeft(t[loc[0]:], " \t")
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return strings.TrimLeft(b.String(), "\n")
}

// Describe says what a file that is not JSON looks like, for the decoders' errors: ""
// when it looks like nothing this package reads.
func Describe(b []byte) string {
	if len(b) > 1<<20 {
		b = b[:1<<20]
	}
	var shapes []string
	for _, blk := range Split(string(b)) {
		for _, p := range Recognize(blk) {
			switch p.Shape {
			case Unrecognized, JSONText, YAMLText:
				continue
			}
			if s := string(p.Shape); !slices.Contains(shapes, s) {
				shapes = append(shapes, s)
			}
		}
	}
	if len(shapes) == 0 {
		return ""
	}
	what := "this looks like " + strings.Join(shapes, " and ") + " output pasted from a console"
	for _, sh := range shapes {
		if !slices.Contains(thinShapes, Shape(sh)) {
			return what + "; run `wintroubleshoot import` on it"
		}
	}
	return what + ", which shows too little to judge: collect the JSON the evidence table names (`wintroubleshoot probes` lists each file's command)"
}

// thinShapes are outputs the importer reports but does not turn into evidence.
var thinShapes = []Shape{KubectlNodes, HnsDiag, NetshDump, WinVersion, PSError, OtherList, OtherTable}

// Hint is Describe as a suffix for a decoder's error ("; this looks like ..."), or ""
// when the text looks like nothing this package reads.
func Hint(b []byte) string {
	if d := Describe(b); d != "" {
		return "; " + d
	}
	return ""
}
