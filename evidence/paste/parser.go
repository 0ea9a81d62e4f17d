package paste

import "regexp"

// Parser holds the patterns the paste readers match lines with, compiled once by New:
// an import builds one Parser and reads every block with it, instead of the package
// keeping compiled patterns in globals.
type Parser struct {
	// Lines
	serialPrefix, serialSource *regexp.Regexp
	// Split
	psPrompt, cmdPrompt, shPrompt, contPrompt, knownVerbs *regexp.Regexp
	// ParseList, ParseTable
	propLine, dashes, colRun, dashRun *regexp.Regexp
	// Recognize
	cmdShapes                                                      []cmdShape
	componentLogFile                                               *regexp.Regexp
	ipconfigHeader, scService, netshLine, winVer, routeTable       *regexp.Regexp
	kubeYAML, psErrorLine, sysinfoHeader, netshShow, hnsdiagHeader *regexp.Regexp
	// logs
	klogLine, klogHeader, klogFile, proxyFiles, kubeletFile, joinedKlog, timestampLn *regexp.Regexp
}

// cmdShape is what a command line says its output is.
type cmdShape struct {
	re    *regexp.Regexp
	shape Shape
}

// New compiles the patterns.
func New() *Parser {
	re := regexp.MustCompile
	return &Parser{
		// A serial console (GCE's metadata script runner, Azure's boot diagnostics, a
		// syslog relay) puts a timestamp and a source in front of every line. The prefix
		// ends at exactly one space: what follows may start with spaces of its own.
		serialPrefix: re(`^\d{4}[/-]\d{2}[/-]\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z? [\w.-]+: `),
		serialSource: re(`^[\w.-]+: `),
		// PowerShell's prompt, with the remoting prefix when run through Enter-PSSession.
		psPrompt: re(`^\s*(?:\[([^\]]+)\]: )?PS [A-Za-z]:\\[^>]*> ?(.*)$`),
		// cmd.exe's (C:\k>), and a shell's ($ kubectl ..., user@host:~$ kubectl ...).
		cmdPrompt: re(`^\s*(?:[A-Za-z]:\\[^>]*>|(?:[\w.-]+@([\w.-]+)(?::[^$#]*)?)?\$) ?(.*)$`),
		// bash's default on RHEL-like hosts: [root@m1 ~]# kubectl ...
		shPrompt:   re(`^\s*\[[\w.-]+@([\w.-]+)[^\]]*\][$#] ?(.*)$`),
		contPrompt: re(`^>> ?(.*)$`),
		knownVerbs: re(`(?i)^(?:get-|kubectl|docker|crictl|ctr|cat |type |gc |ipconfig|route|netsh|sc(?:\.exe)? |hnsdiag|systeminfo|cmd |ver\b|\.\\|c:\\|&)`),
		// "Name<padding> : value" (or "Name :" with nothing after it). Property names stay
		// English whatever the system's language; only values are localized.
		propLine: re(`^( *)([A-Za-z_][A-Za-z0-9_.\-]*)( *) :(?: (.*))?$`),
		dashes:   re(`^[ -]*-[ -]*$`),
		colRun:   re(`\S+(?: \S+)*`),
		dashRun:  re(`-+`),

		cmdShapes: commandShapes(re),
		// Get-Content of a kubelet or kube-proxy log file names the component.
		componentLogFile: re(`(?i)^(?:get-content|gc|cat|type)\b.*?\\(kube-?proxy|kubelet)[^\\/\s'"]*\.log\b`),
		// ipconfig's first line in English, German and Chinese.
		ipconfigHeader: re(`^(?:Windows IP Configuration|Windows-IP-Konfiguration|Windows IP 配置)`),
		scService:      re(`^SERVICE_NAME: \S`),
		netshLine:      re(`(?m)^\s*(?:add route prefix=|add address name=|pushd interface ipv4|popd\s*$)`),
		winVer:         re(`^Microsoft Windows \[(?:Version|版本) \d+\.\d+\.\d+(?:\.\d+)?\]`),
		routeTable:     re(`(?m)^(?:IPv4 Route Table|IPv4-Routentabelle|IPv4 路由表)`),
		// What kubectl -o yaml prints first.
		kubeYAML: re(`^apiVersion: \S+\n(?:.*\n)*?kind: \S+`),
		// How PowerShell prints an error record: "Verb-Noun : message", then
		// "+ CategoryInfo" and "+ FullyQualifiedErrorId" (localized messages, English names).
		psErrorLine:   re(`^[A-Z][a-z]+-[A-Za-z]+ : \S|^\s*\+ (?:CategoryInfo|FullyQualifiedErrorId) +: `),
		sysinfoHeader: re(`(?m)^(?:Host Name|Hostname|主机名):\s+\S+\n(?:OS Name|Betriebssystemname|OS 名称):\s+`),
		// netsh's English headers; in other languages the command line tells it (the
		// parsers read the columns by position and the addresses by their values).
		netshShow:     re(`(?m)^Configuration for interface "|^Publish\s+Type\s+Met\s+Prefix|^\s*Idx\s+Met\s+MTU\s+State|^\s*MTU\s+MediaSenseState`),
		hnsdiagHeader: re(`(?m)^(?:Networks:|Endpoints:|LoadBalancers:|Namespaces:)$|^Name +ID +(?:Virtual Network Name)?\s*$`),

		klogLine:   re(`^[IWEF]?\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] `),
		klogHeader: re(`^(?:Log file created at:|Running on machine:|Binary: Built with|Log line format:)`),
		klogFile:   re(`^[IWEF]?\d{4} \S+ +\d+ ([\w.-]+)\.go:\d+\]`),
		proxyFiles: re(`^(?:proxier|server_windows|hns|hnsV[12]|winkernel|proxy_.*)$`),
		kubeletFile: re(`^(?:kubelet.*|kuberuntime.*|docker_.*|cni.*|perfcounter.*|pod_workers|container_manager.*|` +
			`eviction_manager|volume_manager|reconciler|remote_runtime|remote_image|pleg|generic)$`),
		// A klog line a terminal copy glued onto the previous one, after the padding that
		// filled the previous line to the console's width.
		joinedKlog: re(`\s{2,}[IWEF]?\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] `),
		// An RFC 3339 timestamp a relay put before a log line (kubectl logs --timestamps).
		timestampLn: re(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z? `),
	}
}
