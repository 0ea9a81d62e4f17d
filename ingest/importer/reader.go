package importer

import (
	"regexp"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// reader is one import's parsers: the paste package's and the patterns the converters
// match with, compiled once per import (the project keeps no package globals).
type reader struct {
	paste *paste.Parser
	// import.go, convert.go
	machineLine, intText, allFlag *regexp.Regexp
	// netcmds.go
	adapterLine, ipconfigPair, scPair, activeRoutes, routeEnd, verLine, netshArg *regexp.Regexp
	// host.go
	sysinfoBuild *regexp.Regexp
	// nodes.go
	describeKey, describeSub, taintRe *regexp.Regexp
	// json.go
	jsonCommands []jsonCommand
	// events.go
	eventRow, assigned, nodeStatus *regexp.Regexp
}

// jsonCommand maps a pasted JSON command to the evidence it is.
type jsonCommand struct {
	re  *regexp.Regexp
	key func() evidence.Ref
}

func newReader() *reader {
	re := regexp.MustCompile
	rd := &reader{
		paste:       paste.New(),
		machineLine: re(`^Running on machine: (\S+)`),
		intText:     re(`^-?[0-9]{1,18}$`),
		allFlag:     re(`(?:^|\s)(?:-a|--all|-\w*a\w*)(?:\s|$)`),
		// ipconfig's section header: "Ethernet adapter vEthernet (nat):",
		// "Ethernet-Adapter vEthernet (nat):", "以太网适配器 vEthernet (nat):", and the
		// fr, es, pt, it, ja, ko, ru forms ("Carte Ethernet vEthernet (nat) :").
		adapterLine: re(`^(?:\S+ adapter|\S+-Adapter|以太网适配器|未知适配器|无线局域网适配器|Carte \S+|Adaptador de \S+|Adaptador \S+|` +
			`Scheda \S+|イーサネット アダプター|이더넷 어댑터|Адаптер \S+) (.+?) ?:\s*$`),
		// "   Label . . . . : value", with the dots localized labels keep.
		ipconfigPair: re(`^\s+([^.:]+?)[ .]*: ?(.*)$`),
		scPair:       re(`^\s+([A-Z_0-9]+)\s+: (.*)$`),
		activeRoutes: re(`^(?:Active Routes|Aktive Routen|活动路由):`),
		routeEnd:     re(`^(?:=+|Persistent Routes|Ständige Routen|永久路由|IPv6)`),
		// ver's line: "[Version 10.0.17763.1879]", "[version ...]" (fr), "[Versión ...]",
		// "[versão ...]", "[版本 ...]".
		verLine: re(`\[(?i:version|versión|versão|versione|версия|バージョン|버전|版本) (\d+)\.(\d+)\.(\d+)(?:\.(\d+))?\]`),
		// systeminfo's OS Version value: "10.0.17763 N/A Build 17763" in any language.
		sysinfoBuild: re(`^10\.0\.(\d{4,5}) .*\D(\d{4,5})$`),
		netshArg:     re(`(\w+)=("[^"]*"|\S+)`),
		describeKey:  re(`^([A-Z][A-Za-z -]*):\s*(.*)$`),
		describeSub:  re(`^\s+([A-Za-z][A-Za-z -]*):\s+(.*)$`),
		taintRe:      re(`^([^=:\s]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$`),
		jsonCommands: jsonCommands(re),
	}
	rd.eventRow, rd.assigned, rd.nodeStatus = eventPatterns(re)
	return rd
}
