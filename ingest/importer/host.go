package importer

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/paste"
)

// hostFields are the host.json fields an output can show, in the snippet's order.
func hostFields() []string {
	return []string{"ComputerName", "DnsHostName", "Domain", "PartOfDomain", "ProductName", "CurrentBuild", "UBR",
		"BuildLabEx", "LastBootUpTime", "CollectedAt", "ContainersFeature"}
}

// hostBlock reads what an output shows of the host (ver, systeminfo,
// [Environment]::OSVersion, Get-ComputerInfo, Get-ItemProperty of the CurrentVersion
// key, the host snippet's object as a list view) and merges it with what earlier blocks
// showed. host.json is written once a block shows the OS build; the fields no block
// showed are listed in its NotShown, so a probe that needs one skips, naming the
// command, instead of judging a revision 0 or an empty name.
func (r *reader) hostBlock(res *Result, p paste.Part, node string, br BlockReport) BlockReport {
	facts, why := r.hostFacts(p)
	if why != "" {
		br.Note = why
	}
	if len(facts) == 0 {
		br.FirstLines, br.Recollect = firstLines(p.Lines), evidence.Host.Meta().Command
		if br.Note == "" {
			br.Note = "no host fact (build, revision, name) read from this output"
		}
		return br
	}
	br.Parsed = len(facts)
	if lv := p.List; len(lv.Records) > 0 {
		br.Leftover = leftovers(lv.Leftover)
	}
	merged := len(res.host) > 0
	if !r.mergeHost(res, node, facts) {
		br.Values, br.Recollect = facts, evidence.Host.Meta().Command
		br.Note = strings.TrimPrefix(br.Note+"; ", "; ") + "no block shows the OS build, which host.json needs (ver, systeminfo or Get-ItemProperty of the CurrentVersion key show it): kept in values"
		return br
	}
	out := r.writeHost(res, node, br)
	if merged && out.Evidence != "" {
		out.Note = strings.TrimSuffix("merged with the host facts of the earlier blocks; "+why, "; ")
	}
	return out
}

// mergeHost adds facts to what the paste showed of the host, and says whether the OS
// build is known (host.json can be written). A later block's value replaces an earlier
// one's: the engineer pasted it after.
func (r *reader) mergeHost(res *Result, node string, facts map[string]any) bool {
	if res.host == nil {
		res.host = map[string]any{}
	}
	maps.Copy(res.host, facts)
	_, ok := res.host["CurrentBuild"]
	return ok
}

// writeHost writes host.json from the facts merged so far.
func (r *reader) writeHost(res *Result, node string, br BlockReport) BlockReport {
	doc := maps.Clone(res.host)
	var notShown []string
	var missing []Missing
	for _, f := range hostFields() {
		if _, ok := doc[f]; !ok {
			notShown = append(notShown, f)
			missing = append(missing, Missing{Item: "host", Field: f, Why: whyAbsent})
		}
	}
	doc["NotShown"] = notShown
	return writeJSON(res, evidence.Host, node, doc, missing, br)
}

// hostFacts reads the host's fields from one output; why says what it leaves out on
// purpose (a revision that is not the UBR, a boot time in the console's time zone).
func (r *reader) hostFacts(p paste.Part) (map[string]any, string) {
	switch p.Shape {
	case paste.WinVersion:
		return r.verFacts(p.Lines), ""
	case paste.SystemInfo:
		return r.systeminfoFacts(p.Lines), "systeminfo prints the boot time in the console's time zone and format and no update revision (UBR): both are left unknown"
	case paste.OSVersion:
		return osVersionFacts(p.Table, p.Lines), "[Environment]::OSVersion's revision is not the update revision (UBR: .NET reports 0), so it is left unknown"
	case paste.ComputerInfo:
		return r.recordFacts(p.List, computerInfoFields()), "Get-ComputerInfo prints OsLastBootUpTime in the console's time zone and format: left unknown"
	case paste.CurrentVersion:
		return r.recordFacts(p.List, currentVersionFields()), ""
	case paste.HostList:
		if len(p.List.Records) != 1 {
			return nil, "host facts are one object; the paste has " + strconv.Itoa(len(p.List.Records))
		}
		fields := map[string]string{}
		for _, f := range hostFields() {
			fields[f] = f
		}
		return r.recordFacts(p.List, fields), ""
	}
	return nil, ""
}

// verFacts reads `ver`: "Microsoft Windows [Version 10.0.17763.1879]" (the revision
// is the UBR; builds before 1607 print three parts only).
func (r *reader) verFacts(lines []paste.Line) map[string]any {
	for _, l := range lines {
		if m := r.verLine.FindStringSubmatch(l.Text); m != nil {
			out := map[string]any{"CurrentBuild": m[3]}
			if m[4] != "" {
				out["UBR"] = json.Number(m[4])
			}
			return out
		}
	}
	return nil
}

// systeminfoFacts reads systeminfo's Host Name, OS Name, OS Version and Domain, by
// their labels in the languages listed and, for the build, by the value's own shape
// ("10.0.17763 N/A Build 17763", whatever the words between are).
func (r *reader) systeminfoFacts(lines []paste.Line) map[string]any {
	out := map[string]any{}
	for label, v := range r.systeminfo(lines) {
		val, ok := v.(string)
		if !ok || val == "" {
			continue
		}
		switch {
		case hasLabel(hostNameLabels(), label):
			out["ComputerName"] = val
		case hasLabel(osNameLabels(), label):
			out["ProductName"] = strings.TrimPrefix(val, "Microsoft ")
		case hasLabel(domainLabels(), label):
			out["Domain"] = val
		}
		if m := r.sysinfoBuild.FindStringSubmatch(val); m != nil && m[1] == m[2] {
			out["CurrentBuild"] = m[1]
		}
	}
	return out
}

// hostNameLabels are ipconfig's and systeminfo's "Host Name" in the languages Windows
// Server ships (en, de, zh-CN, fr, es, ja, pt, ru, ko, it).
func hostNameLabels() []string {
	return []string{"Host Name", "Hostname", "主机名", "Nom de l’hôte", "Nom de l'hôte", "Nombre de host", "ホスト名",
		"Nome do Host", "Nome host", "Имя узла", "Имя компьютера", "호스트 이름"}
}

func osNameLabels() []string {
	return []string{"OS Name", "Betriebssystemname", "OS 名称", "Nom du système d’exploitation", "Nombre del sistema operativo",
		"OS 名", "Nome do sistema operacional", "Название ОС", "OS 이름", "Nome SO"}
}

func domainLabels() []string {
	return []string{"Domain", "Domäne", "域", "Domaine", "Dominio", "ドメイン", "Domínio", "Домен", "도메인"}
}

// osVersionFacts reads [Environment]::OSVersion (Platform, ServicePack, Version,
// VersionString) or its .Version (Major, Minor, Build, Revision): the build only.
func osVersionFacts(t paste.Table, lines []paste.Line) map[string]any {
	for _, l := range lines {
		// [Environment]::OSVersion.ToString(): "Microsoft Windows NT 10.0.17763.0".
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l.Text), "Microsoft Windows NT 10.0."); ok {
			if b, _, _ := strings.Cut(rest, "."); len(b) >= 4 && strings.Trim(b, "0123456789") == "" {
				return map[string]any{"CurrentBuild": b}
			}
		}
	}
	for _, row := range t.Rows {
		if b := t.Get(row, "Build"); t.Has("Major") && b != "" {
			return map[string]any{"CurrentBuild": b}
		}
		parts := strings.Split(t.Get(row, "Version"), ".")
		if len(parts) >= 3 && parts[0] == "10" {
			return map[string]any{"CurrentBuild": parts[2]}
		}
	}
	return nil
}

// computerInfoFields maps Get-ComputerInfo's properties to host.json's fields.
func computerInfoFields() map[string]string {
	return map[string]string{"CsName": "ComputerName", "CsDNSHostName": "DnsHostName", "CsDomain": "Domain",
		"CsPartOfDomain": "PartOfDomain", "WindowsProductName": "ProductName", "OsBuildNumber": "CurrentBuild",
		"WindowsUBR": "UBR", "WindowsBuildLabEx": "BuildLabEx"}
}

// currentVersionFields maps the CurrentVersion key's values to host.json's fields (the
// snippet reads the same key).
func currentVersionFields() map[string]string {
	return map[string]string{"CurrentBuild": "CurrentBuild", "CurrentBuildNumber": "CurrentBuild", "UBR": "UBR",
		"ProductName": "ProductName", "BuildLabEx": "BuildLabEx"}
}

// recordFacts reads a list view's first record through the field map; a value the
// console cut or collapsed is not read. The build comes from BuildLabEx
// ("17763.1.amd64fre.rs5_release.180914-1434") when nothing else shows it.
func (r *reader) recordFacts(lv paste.ListView, fields map[string]string) map[string]any {
	if len(lv.Records) == 0 {
		return nil
	}
	out := map[string]any{}
	rec := lv.Records[0]
	for _, f := range rec.Fields {
		to, ok := fields[f.Name]
		if !ok || f.Value.Kind != paste.Scalar || paste.Truncated(f.Value.Text) {
			continue
		}
		// ". . ." on the line after is the author's cut of the list, not the value's.
		val := f.Value
		val.Text = strings.TrimSpace(strings.TrimSuffix(val.Text, ". . ."))
		c := conv{item: "host", intText: r.intText}
		v, _ := c.value(f.Name, val)
		switch to {
		case "UBR", "ContainersFeature":
			if _, isNum := v.(json.Number); !isNum {
				continue
			}
		case "PartOfDomain":
			if _, isBool := v.(bool); !isBool {
				continue
			}
		default:
			v = val.Text // strings in host.json, whatever they look like
		}
		out[to] = v
	}
	if _, ok := out["CurrentBuild"]; !ok {
		if lab, ok := out["BuildLabEx"].(string); ok {
			if b, _, _ := strings.Cut(lab, "."); r.intText.MatchString(b) {
				out["CurrentBuild"] = b
			}
		}
	}
	if b, ok := out["CurrentBuild"].(string); ok && !r.intText.MatchString(b) {
		delete(out, "CurrentBuild")
	}
	return out
}

// ipconfigHost is the host name `ipconfig /all` shows: the DNS host name
// ([Net.Dns]::GetHostName(), which the kubelet's default node name comes from).
func (r *reader) ipconfigHost(lines []paste.Line) map[string]any {
	for _, l := range lines {
		m := r.ipconfigPair.FindStringSubmatch(strings.TrimRight(l.Text, " "))
		if m != nil && hasLabel(hostNameLabels(), strings.TrimSpace(m[1])) && strings.TrimSpace(m[2]) != "" {
			return map[string]any{"DnsHostName": strings.TrimSpace(m[2])}
		}
	}
	return nil
}
