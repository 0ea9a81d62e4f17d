package paste

import "regexp"

// Parser holds the patterns the paste readers match lines with, compiled once by New:
// an import builds one Parser and reads every block with it, instead of the package
// keeping compiled patterns in globals.
type Parser struct {
	// Lines
	serialPrefix, serialSource, quoteMark, journald, runnerStamp *regexp.Regexp
	// Split
	psPrompt, cmdPrompt, shPrompt, contPrompt, knownVerbs, bareCommand, aliasCmd *regexp.Regexp
	// ParseList, ParseTable
	propLine, dashes, colRun, dashRun *regexp.Regexp
	// Recognize
	cmdShapes                                                      []cmdShape
	componentLogFile                                               *regexp.Regexp
	ipconfigHeader, scService, netshLine, winVer, routeTable       *regexp.Regexp
	ipconfigAdapter, ipconfigDotted, cutMark                       *regexp.Regexp
	eventRow, eventHeader                                          *regexp.Regexp
	kubeYAML, psErrorLine, sysinfoHeader, netshShow, hnsdiagHeader *regexp.Regexp
	// logs
	klogLine, klogHeader, klogFile, proxyFiles, kubeletFile, flannelFiles, joinedKlog, timestampLn *regexp.Regexp
	commandLog                                                                                     *regexp.Regexp
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
		serialPrefix: re(`^\d{4}[/-]\d{2}[/-]\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z? [\w.-]+:(?: |$)`),
		serialSource: re(`^[\w.-]+:(?: |$)`),
		// Markdown blockquote marks, any depth: "> ", ">", "> > ", ">> ".
		quoteMark: re(`^ {0,3}>(?: ?>)*(?: |$)`),
		// journald's short format: "Dec 21 15:07:30 node-01 kubelet[26278]: ".
		journald: re(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ ([\w.@/-]+?)(?:\[\d+\])?: `),
		// A CI runner's or kubectl logs --timestamps' RFC 3339 stamp.
		runnerStamp: re(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)? `),
		// PowerShell's prompt, with the remoting prefix when run through Enter-PSSession;
		// pwsh's "PS /home/me>" and a bare "PS>" too.
		psPrompt: re(`^\s*(?:\[([^\]]+)\]: )?PS(?: [A-Za-z]:\\[^>]*| /[^>]*| )?> ?(.*)$`),
		// cmd.exe's (C:\k>), and a shell's: $ kubectl ..., user@host:~$ kubectl ...,
		// root@host:~# ..., zsh's user@host ~ % ... and host% ..., oh-my-zsh's
		// "➜  dir git:(main) ✗ ...", starship's "❯ ...", and a bare "> " or "# ".
		cmdPrompt: re(`^\s*(?:[A-Za-z]:\\[^>]*>|[\w.-]+@[\w.-]+(?::\S*)?(?: [^$#%]*)?[$#%]|[\w.-]+%|➜ +\S+(?: git:\([^)]*\))?(?: ✗)?|❯|[$#%>]) ?(.*)$`),
		// bash's default on RHEL-like hosts: [root@m1 ~]# kubectl ...
		shPrompt:   re(`^\s*\[[\w.-]+@([\w.-]+)[^\]]*\][$#] ?(.*)$`),
		contPrompt: re(`^>> ?(.*)$`),
		knownVerbs: re(`(?i)^(?:get-|kubectl|k |kg[a-z]*\b|kd[a-z]*\b|docker|crictl|ctr|cat |type |gc |ipconfig|route|netsh|sc(?:\.exe)? |hnsdiag|systeminfo|cmd |ver\b|\.\\|c:\\|&|\[environment\]|\[system\.environment\]|gp |gin\b|\(get-|journalctl|systemctl|ps |hostname)`),
		// A command line pasted without its prompt: a known command alone on its line.
		bareCommand: re(`(?i)^(?:kubectl(?:\.exe)? (?:get|describe)|k (?:get|describe)|kgno\w*|kdno\w*|get-(?:hns\w+|service|netroute|netipaddress|netadapter|netipinterface|computerinfo|itemproperty)\b|hnsdiag(?:\.exe)? list|ipconfig(?:\.exe)?(?: /all)?\s*$|systeminfo(?:\.exe)?\s*$|route(?:\.exe)? print|sc(?:\.exe)? (?:query|queryex|qc) |crictl(?:\.exe)? \w|ctr(?:\.exe)? \S|docker(?:\.exe)? (?:ps|images)|\[(?:system\.)?environment\]::osversion)[^:]*$`),
		// kubectl aliases people type (the ahmetb/kubectl-aliases set and "k").
		aliasCmd: re(`^(k|kg|kd|kgno|kgnowide|kgnoow|kdno|kgpo|kdpo|kgev|kge)(?:\s|$)`),
		// "Name<padding> : value" (or "Name :" with nothing after it). Property names stay
		// English whatever the system's language; only values are localized.
		propLine: re(`^( *)([A-Za-z_][A-Za-z0-9_.\-]*)( *) :(?: (.*))?$`),
		dashes:   re(`^[ -]*-[ -]*$`),
		colRun:   re(`\S+(?: \S+)*`),
		dashRun:  re(`-+`),

		cmdShapes: commandShapes(re),
		// Get-Content of a kubelet or kube-proxy log file names the component.
		componentLogFile: re(`(?i)^(?:get-content|gc|cat|type)\b.*?\\(kube-?proxy|kubelet|flanneld)[^\\/\s'"]*\.log\b`),
		// ipconfig's first line in English, German and Chinese.
		ipconfigHeader: re(`^(?:Windows IP Configuration|Windows-IP-Konfiguration|Windows IP 配置|Configuration IP de Windows|` +
			`Configuración IP de Windows|Configuração de IP do Windows|Configurazione IP di Windows|Windows IP 構成|Windows IP 구성|` +
			`Настройка протокола IP для Windows)`),
		// An adapter's section header, for the paste that starts at a section (the
		// header cut off): en, de, zh-CN, fr, es, pt, it, ja, ko, ru.
		ipconfigAdapter: re(`^(?:\S+ adapter|\S+-Adapter|以太网适配器|未知适配器|无线局域网适配器|隧道适配器|Carte|Adaptador|Scheda|` +
			`イーサネット アダプター|不明なアダプター|이더넷 어댑터|Адаптер|Туннельный адаптер) \S.*\S ?:\s*$`),
		// The marks an author leaves where a paste was cut: "--- snip ---", ". . .", "...".
		cutMark: re(`^\s*(?:-+ ?(?:snip|cut|schnipp)\w* ?-+|(?:\. ?){3}|…|\[\.\.\.\])\s*$`),
		// "   IPv4 Address. . . . . . . . . . . : 10.0.0.4": a label padded with ". ".
		ipconfigDotted: re(`^\s{2,}\S.*?(?:\. ?){2,}\s*:`),
		scService:      re(`^SERVICE_NAME: \S`),
		// One row of describe's Events: Type, Reason, Age ("2m", "22s (x12 over 41s)"),
		// From ("kubelet, w1" before kubectl 1.18, "kubelet" after), Message.
		eventRow:    re(`^\s*(Normal|Warning)\s{2,}(\S+)\s{2,}(\S+(?: \(x\d+ over \S+\))?)\s{2,}(\S+(?:, \S+)?)\s{2,}(.*)$`),
		eventHeader: re(`^\s*Type\s+Reason\s+Age\s+From\s+Message\s*$`),
		netshLine:   re(`(?m)^\s*(?:add route prefix=|add address name=|pushd interface ipv4|popd\s*$)`),
		winVer:      re(`^Microsoft Windows \[(?i:version|versión|versão|versione|версия|バージョン|버전|版本) \d+\.\d+\.\d+(?:\.\d+)?\]`),
		routeTable:  re(`(?m)^(?:IPv4 Route Table|IPv4-Routentabelle|IPv4 路由表)`),
		// What kubectl -o yaml prints first.
		kubeYAML: re(`^apiVersion: \S+\n(?:.*\n)*?kind: \S+`),
		// How PowerShell prints an error record: "Verb-Noun : message", then
		// "+ CategoryInfo" and "+ FullyQualifiedErrorId" (localized messages, English names).
		psErrorLine: re(`^[A-Z][a-z]+-[A-Za-z]+ : \S|^\s*\+ (?:CategoryInfo|FullyQualifiedErrorId) +: `),
		// systeminfo's first lines, or (an excerpt) its OS Version line in any language:
		// "OS Version:                10.0.14393 N/A Build 14393".
		sysinfoHeader: re(`(?m)^(?:Host Name|Hostname|主机名):\s+\S+\n(?:OS Name|Betriebssystemname|OS 名称):\s+|` +
			`^[^\s:][^:\n]*:\s{2,}10\.0\.(\d{4,5}) \S+(?: \S+)* \d{4,5}\s*$`),
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
		// flanneld's source files (flannel-io/flannel: backend/vxlan, backend/hostgw, subnet/kube).
		flannelFiles: re(`^(?:vxlan_windows|hostgw_windows|vxlan_network_windows|vxlan|hostgw|kube|iptables|ipmasq|registry)$`),
		// The logs of a component a container runtime or kubectl printed: docker logs
		// kubelet (Rancher's RKE runs it in a container), kubectl logs kube-proxy-windows-x.
		commandLog: re(`(?i)^(?:docker|crictl|nerdctl|kubectl|k)(?:\.exe)? (?:.+ )?logs\b.*?\b(kube-?proxy|kubelet|flanneld|kube-flannel)`),
		// A klog line a terminal copy glued onto the previous one, after the padding that
		// filled the previous line to the console's width.
		joinedKlog: re(`\s{2,}[IWEF]?\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] `),
		// An RFC 3339 timestamp a relay put before a log line (kubectl logs --timestamps).
		timestampLn: re(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z? `),
	}
}
