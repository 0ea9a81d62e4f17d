package paste

import (
	"strconv"
	"strings"
	"testing"
)

// locales are extension names as localized Windows builds print them (property names
// stay English): de-DE and zh-CN, the Chinese ones two console cells per character.
func locales() map[string]*strings.Replacer {
	return map[string]*strings.Replacer{
		"de-DE": strings.NewReplacer("Microsoft Windows Filtering Platform", "Microsoft Windows-Filterplattform",
			"Microsoft NDIS Capture", "Microsoft-NDIS-Aufzeichnung"),
		"zh-CN": strings.NewReplacer("Microsoft Windows Filtering Platform", "Microsoft Windows 筛选平台",
			"Microsoft NDIS Capture", "Microsoft NDIS 捕获", "Microsoft Azure VFP Switch Extension", "Microsoft Azure VFP 交换机扩展"),
	}
}

// TestLocalizedWrappedVariants localizes each real list view, wraps it every way at
// every width, puts a prompt before it, trailing spaces after its lines and,
// sometimes, a serial-console prefix in front of every line, and expects the localized
// values back.
func TestLocalizedWrappedVariants(t *testing.T) {
	p := New()
	for name, lines := range realLists(t) {
		for loc, r := range locales() {
			flat := p.ParseList(p.Lines(r.Replace(FormatList(p.ParseList(lines).Records, 0, WordWrap, 0)))).Records
			want := plain(flat)
			for _, w := range []int{80, 100, 120, 140} {
				for _, wrap := range []Wrap{WordWrap, LostIndent, ConsoleCut} {
					text := FormatList(flat, w, wrap, 0)
					variants := map[string]string{
						"prompt":   "PS C:\\k> Get-HnsNetwork\n" + text,
						"trailing": strings.ReplaceAll(text, "\n", "   \n"),
						"serial":   "2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n2024/05/06 07:08:09 GCEMetadataScripts: windows-startup-script-ps1: ") + "\n",
						"crlf":     strings.ReplaceAll(text, "\n", "\r\n"),
					}
					for vn, v := range variants {
						var got []map[string]any
						for _, b := range p.Split(v) {
							for _, p := range p.Recognize(b) {
								if len(p.List.Records) > 0 {
									got = append(got, plain(p.List.Records)...)
								}
							}
						}
						assertSame(t, name+" "+loc+" "+wrapName(wrap)+" at "+strconv.Itoa(w)+" "+vn, want, got)
					}
				}
			}
		}
	}
}

// TestCellsWide: a Chinese character takes two cells; a console that cannot fit one in
// the last cell moves it to the next line, which is still a cut, not a word break.
func TestCellsWide(t *testing.T) {
	p := New()
	if got := Cells("筛选平台 ab"); got != 11 {
		t.Errorf("Cells = %d, want 11", got)
	}
	recs := []Record{{Fields: []Field{{Name: "Name", Value: Value{Kind: Scalar, Text: strings.Repeat("筛", 30)}}}}}
	for w := 20; w < 30; w++ {
		got := p.ParseList(p.Lines(FormatList(recs, w, ConsoleCut, 0))).Records
		assertSame(t, "wide at "+strconv.Itoa(w), plain(recs), plain(got))
	}
}

func TestParseValue(t *testing.T) {
	cases := map[string]string{
		"{a, b, c...}":                           `["a","b","c","..."]`,
		"{}":                                     `[]`,
		"@{Type=HostRoute}":                      `{"Type":"HostRoute"}`,
		"{@{Id=1; Name=x y}, @{Id=2; Name=z}}":   `[{"Id":"1","Name":"x y"},{"Id":"2","Name":"z"}]`,
		"@{Health=; Allocators=System.Object[]}": `{"Allocators":"\u003cSystem.Object[]\u003e","Health":null}`,
		"System.Collections.ArrayList":           `"\u003cSystem.Collections.ArrayList\u003e"`,
		"{a} {b}":                                `"{a} {b}"`,
		"":                                       `null`,
	}
	for in, want := range cases {
		v := ParseValue(in)
		assertSameJSON(t, in, want, v.Plain())
		if in != "" && in != "{a} {b}" && ParseValue(v.String()).String() != v.String() {
			t.Errorf("%q does not print back the way it parses: %q", in, v.String())
		}
	}
}

// TestTables reads a Format-Table with a truncated and a wrapped cell, a CLI table
// with spaces inside cells, and a right-aligned number.
func TestTables(t *testing.T) {
	p := New()
	ft := "\nStatus   Name               DisplayName\n------   ----               -----------\nRunning  kubelet            kubelet service\nStopped  kube-prox...       kube-proxy service\n                            (wrapped)\n\n"
	tb, ok := p.ParseTable(p.Lines(ft))
	if !ok || len(tb.Rows) != 2 || tb.Get(tb.Rows[1], "Name") != "kube-prox..." || !Truncated(tb.Get(tb.Rows[1], "Name")) ||
		tb.Get(tb.Rows[1], "DisplayName") != "kube-proxy service (wrapped)" {
		t.Errorf("Format-Table: %+v", tb)
	}
	cli := "NAME    STATUS   ROLES    AGE   VERSION   OS-IMAGE\nnode/a  Ready    <none>   5d    v1.23.1   Windows Server 2019 Datacenter\n"
	tb, ok = p.ParseTable(p.Lines(cli))
	if !ok || tb.Get(tb.Rows[0], "OS-IMAGE") != "Windows Server 2019 Datacenter" || tb.Get(tb.Rows[0], "NAME") != "node/a" {
		t.Errorf("CLI table: %+v", tb)
	}
	route := "\nDestinationPrefix RouteMetric\n----------------- -----------\n0.0.0.0/0                 256\n"
	tb, ok = p.ParseTable(p.Lines(route))
	if !ok || tb.Get(tb.Rows[0], "RouteMetric") != "256" {
		t.Errorf("right-aligned: %+v", tb)
	}
}

// TestDescribe names what a paste in a JSON slot is, and says nothing for JSON.
func TestDescribe(t *testing.T) {
	p := New()
	for name, lines := range realLists(t) {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.Text + "\n")
		}
		d := p.Describe([]byte(b.String()))
		if !strings.Contains(d, "list view") || !strings.Contains(d, "wintroubleshoot import") {
			t.Errorf("%s: Describe = %q", name, d)
		}
	}
	if d := p.Describe([]byte(`[{"Name": "nat"}]`)); d != "" {
		t.Errorf("p.Describe(JSON) = %q", d)
	}
	if d := p.Describe([]byte("REPOSITORY   TAG   IMAGE ID   CREATED   SIZE\nnanoserver   1809   e9bbec97e222   7 days ago   250MB\n")); !strings.Contains(d, "docker images") {
		t.Errorf("p.Describe(docker images) = %q", d)
	}
}
