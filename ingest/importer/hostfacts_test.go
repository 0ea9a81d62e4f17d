package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
	"github.com/wintroubleshoot/wintroubleshoot/ingest/importer"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

func importText(t *testing.T, texts ...string) importer.Result {
	t.Helper()
	var in []importer.Input
	for i, s := range texts {
		in = append(in, importer.Input{Name: "paste-" + itoa(i), Data: []byte(s)})
	}
	res, err := importer.Import(in, importer.Options{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hostOf(t *testing.T, res importer.Result) (decode.Host, bool) {
	t.Helper()
	b, ok := res.Files[evidence.Host.Path("win-1")]
	if !ok {
		return decode.Host{}, false
	}
	h, err := decode.DecodeHost("host.json", b)
	if err != nil {
		t.Fatalf("host.json does not decode: %v\n%s", err, b)
	}
	return h, true
}

func corpusText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHostFromPastes: each output that shows host facts gives the fields it shows, the
// others recorded as not shown; outputs pasted together make one host.json in either
// order.
func TestHostFromPastes(t *testing.T) {
	ipconfig := corpusText(t, "ipconfig-all_no-blank-lines_aks-engine-accelnet.txt")
	ver := "C:\\k>ver\n\nMicrosoft Windows [Version 10.0.17763.2628]\n"
	osv := "PS C:\\> [Environment]::OSVersion\n\nPlatform ServicePack Version      VersionString\n" +
		"-------- ----------- -------      -------------\n Win32NT             10.0.20348.0 Microsoft Windows NT 10.0.20348.0\n"
	gp := "PS C:\\> Get-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'\n\n" +
		"BuildLabEx                : 17763.1.amd64fre.rs5_release.180914-1434\nCurrentBuild              : 17763\n" +
		"CurrentBuildNumber        : 17763\nProductName               : Windows Server 2019 Datacenter\nReleaseId                 : 1809\n" +
		"UBR                       : 2300\n"
	gin := "PS C:\\> Get-ComputerInfo\n\nWindowsBuildLabEx                                       : 20348.1.amd64fre.fe_release.210507-1500\n" +
		"WindowsProductName                                      : Windows Server 2022 Datacenter\nWindowsUBR                                              : 2700\n" +
		"CsDNSHostName                                           : akswin2000000\nCsDomain                                                : WORKGROUP\n" +
		"CsName                                                  : AKSWIN2000000\nCsPartOfDomain                                          : False\n" +
		"OsLastBootUpTime                                        : 10/2/2024 7:08:09 AM\n"
	for _, c := range []struct {
		name     string
		texts    []string
		build    string
		ubr      int64 // -1: not shown
		shown    []string
		notShown []string
	}{
		{"ver", []string{ver}, "17763", 2628, nil, []string{"ComputerName", "LastBootUpTime"}},
		{"ipconfig then ver", []string{ipconfig, ver}, "17763", 2628, []string{"DnsHostName"}, []string{"ComputerName"}},
		{"ver then ipconfig", []string{ver, ipconfig}, "17763", 2628, []string{"DnsHostName"}, []string{"ComputerName"}},
		{"OSVersion", []string{osv}, "20348", -1, nil, []string{"UBR", "ProductName"}},
		{"Get-ItemProperty", []string{gp}, "17763", 2300, []string{"ProductName", "BuildLabEx"}, []string{"ComputerName"}},
		{"Get-ComputerInfo", []string{gin}, "20348", 2700, []string{"ComputerName", "DnsHostName", "PartOfDomain", "Domain"},
			[]string{"LastBootUpTime", "CollectedAt"}},
		{"quoted", []string{quote(ver, "> ")}, "17763", 2628, nil, nil},
		{"CRLF", []string{strings.ReplaceAll(gp, "\n", "\r\n")}, "17763", 2300, nil, nil},
	} {
		res := importText(t, c.texts...)
		h, ok := hostOf(t, res)
		if !ok {
			rep, _ := res.ReportJSON()
			t.Errorf("%s: no host.json\n%s", c.name, rep)
			continue
		}
		if string(h.CurrentBuild) != c.build || (c.ubr < 0) != !h.Shown("UBR") || c.ubr >= 0 && int64(h.UBR) != c.ubr {
			t.Errorf("%s: build %s UBR %d (shown %v), want %s %d", c.name, h.CurrentBuild, h.UBR, h.Shown("UBR"), c.build, c.ubr)
		}
		for _, f := range c.shown {
			if !h.Shown(f) {
				t.Errorf("%s: %s not shown: %+v", c.name, f, h)
			}
		}
		for _, f := range c.notShown {
			if h.Shown(f) {
				t.Errorf("%s: %s shown: %+v", c.name, f, h)
			}
		}
	}
	// ipconfig alone shows no build: its host name waits, no host.json.
	if _, ok := hostOf(t, importText(t, ipconfig)); ok {
		t.Error("ipconfig alone wrote host.json")
	}
}

// TestIpconfigLanguages: ipconfig /all in the languages Windows Server ships, with or
// without its "Windows IP Configuration" header, gives the same addresses.
func TestIpconfigLanguages(t *testing.T) {
	en := corpusText(t, "ipconfig-all_no-blank-lines_aks-engine-accelnet.txt")
	want := importText(t, en).Files[evidence.IPAddresses.Path("win-1")]
	if len(want) == 0 {
		t.Fatal("no addresses from the English paste")
	}
	langs := map[string][]string{
		"de": {"Windows IP Configuration", "Windows-IP-Konfiguration", "Ethernet adapter", "Ethernet-Adapter", "IPv4 Address. .", "IPv4-Adresse  .", "Subnet Mask", "Subnetzmaske"},
		"fr": {"Windows IP Configuration", "Configuration IP de Windows", "Ethernet adapter Ethernet 2:", "Carte Ethernet Ethernet 2 :", "IPv4 Address.", "Adresse IPv4.", "Subnet Mask", "Masque de sous-réseau"},
		"es": {"Windows IP Configuration", "Configuración IP de Windows", "Ethernet adapter", "Adaptador de Ethernet", "IPv4 Address", "Dirección IPv4", "Subnet Mask", "Máscara de subred"},
		"ja": {"Windows IP Configuration", "Windows IP 構成", "Ethernet adapter", "イーサネット アダプター", "IPv4 Address", "IPv4 アドレス", "Subnet Mask", "サブネット マスク"},
		"ko": {"Windows IP Configuration", "Windows IP 구성", "Ethernet adapter", "이더넷 어댑터", "IPv4 Address", "IPv4 주소", "Subnet Mask", "서브넷 마스크"},
		"ru": {"Windows IP Configuration", "Настройка протокола IP для Windows", "Ethernet adapter", "Адаптер Ethernet", "IPv4 Address", "IPv4-адрес", "Subnet Mask", "Маска подсети"},
		"zh": {"Windows IP Configuration", "Windows IP 配置", "Ethernet adapter", "以太网适配器", "IPv4 Address", "IPv4 地址", "Subnet Mask", "子网掩码"},
		"pt": {"Windows IP Configuration", "Configuração de IP do Windows", "Ethernet adapter", "Adaptador Ethernet", "IPv4 Address", "Endereço IPv4", "Subnet Mask", "Máscara de Sub-rede"},
	}
	for lang, pairs := range langs {
		text := strings.NewReplacer(pairs...).Replace(en)
		lines := strings.Split(text, "\n")
		headerless := strings.Join(slices.Concat(lines[:1], lines[8:]), "\n") // the fence, then the adapter
		for v, s := range map[string]string{"": text, " without the header": headerless} {
			got := importText(t, s).Files[evidence.IPAddresses.Path("win-1")]
			if string(got) != string(want) {
				t.Errorf("%s%s: addresses\n%s\nwant\n%s", lang, v, got, want)
			}
		}
	}
}

// TestHostPartialJudged: a host.json from pasted output judges what it shows (the build)
// and skips what needs the rest, naming the command, instead of judging revision 0.
func TestHostPartialJudged(t *testing.T) {
	osv := "PS C:\\> [Environment]::OSVersion\n\nPlatform ServicePack Version      VersionString\n" +
		"-------- ----------- -------      -------------\n Win32NT             10.0.20348.0 Microsoft Windows NT 10.0.20348.0\n"
	res := importText(t, osv)
	findings, err := engine.AnalyzeImported(context.Background(), probes.Default(), evidence.Evidence{FS: res.FS()}, &res.Report, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]probes.Status{"HOST-KNOWN-BUILD": probes.Skip, "HOST-UPTIME": probes.Skip, "HOST-NAME": probes.Skip, "HOST-PREREQ": probes.Skip}
	for _, f := range findings {
		if st, ok := want[f.Probe]; ok {
			if f.Status != st {
				t.Errorf("%s: %v (%s), want %v", f.Probe, f.Status, f.Summary, st)
			}
			if st == probes.Skip && !strings.Contains(strings.Join(f.Details, " "), "re-collect with: ") {
				t.Errorf("%s skips without the command: %+v", f.Probe, f)
			}
			delete(want, f.Probe)
		}
		if f.Status == probes.Fail || f.Status == probes.Error {
			t.Errorf("%s: %v on a pasted build alone: %s", f.Probe, f.Status, f.Summary)
		}
	}
	if len(want) > 0 {
		t.Errorf("not judged: %v", want)
	}
}
