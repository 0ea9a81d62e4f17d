package paste

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func seeds(f *testing.F) {
	f.Add("PS C:\\k> Get-HnsNetwork\n\nName    : nat\nSubnets : {@{AddressPrefix=172.24.144.0/20; Policies=System.Object[]},\n          @{AddressPrefix=10.0.0.0/8}}\nType    : nat\n")
	f.Add("Name : Calico\nPolicies : {@{Type=HostRoute}, @{DestinationPrefix=100.244.49.64/26; Type=RemoteSubnetRoute}}\nName=Microsoft Azure VFP Switch Extension}\n")
	f.Add("\nStatus   Name               DisplayName\n------   ----               -----------\nRunning  kubelet            kubelet service\n")
	f.Add("REPOSITORY   TAG   IMAGE ID\nnanoserver   1809   e9bbec97e222\n")
	f.Add("2024/05/06 07:08:09 GCEMetadataScripts: x: SERVICE_NAME: kubelet\n")
	f.Add("Extensions : {@{Name=Microsoft Windows 筛选平台}, @{Name=捕获...}}\n")
	f.Add("I0301 07:13:40.106351    3416 server.go:416] Version: v1.20.15   W0301 07:13:40.121879    3416 server.go:474] x\n")
	f.Add("NAME           STATUS   ROLES                  AGE     VERSION                         INTERNAL-IP   EXTE\nRNAL-IP   OS-IMAGE\nwinw1          Ready    <none>                 5h36m   v1.23.3   10.20.30.11   <none>        Win\ndows Server 2019\n")
	f.Add("Name:         iis-1\nNamespace:    default\nContainers:\n  iis:\n    State:  Waiting\n      Reason:  CrashLoopBackOff\nEvents:\n  Type     Reason   Age   From     Message\n  ----     ------   ----  ----     -------\n  Warning  BackOff  2m    kubelet  Back-off\n(extra)\n")
	f.Add("Networks:\nName             ID\nnat              B5083512-BE1D-4326-B58F-56CA5154E8D5\n\nLoadBalancers:\nID    | Virtual IPs      | Direct IP IDs\n326f  |  10.96.0.1       | ba06\n")
	f.Add("Configuration for interface \"vEthernet (nat)\"\n    IP Address:      172.28.96.1\n    Subnet Prefix:   172.28.96.0/20 (mask 255.255.240.0)\n")
}

// FuzzParseList: never panics, every non-blank line ends up in a record or the
// leftovers, and what it parsed prints back (unwrapped) to the same values.
func FuzzParseList(f *testing.F) {
	p := New()
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		lv := p.ParseList(p.Lines(s))
		again := p.ParseList(p.Lines(FormatList(lv.Records, 0, WordWrap, 0)))
		assertSame(t, "round trip", plain(lv.Records), plain(again.Records))
		for _, w := range []int{80, 120} {
			_ = p.ParseList(p.Lines(FormatList(lv.Records, w, ConsoleCut, 2)))
		}
	})
}

// FuzzParseValue: a parsed value prints back to text that parses to the same value.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"{a, b, c...}", "@{K=V; L=}", "{@{Id=1}, @{Id=2}}", "System.Object[]", "{{}}", "@{a=@{b={c}}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\r\n") {
			return
		}
		v := ParseValue(s)
		if w := ParseValue(v.String()); w.String() != v.String() {
			t.Errorf("%q -> %q -> %q", s, v.String(), w.String())
		}
	})
}

// FuzzParseTable: never panics, and every row has one cell per column.
func FuzzParseTable(f *testing.F) {
	p := New()
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		tb, ok := p.ParseTable(p.Lines(s))
		if !ok {
			return
		}
		for _, r := range tb.Rows {
			if len(r.Cells) != len(tb.Columns) {
				t.Fatalf("row %d has %d cells for %d columns", r.Line, len(r.Cells), len(tb.Columns))
			}
		}
	})
}

// FuzzRecognize: splitting, recognizing, log cleanup and Describe never panic, and
// every line of the paste lands in exactly one part or is a prompt.
func FuzzRecognize(f *testing.F) {
	p := New()
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, b := range p.Split(s) {
			for _, pt := range p.Recognize(b) {
				if pt.Shape == KlogText {
					_ = p.LogText(pt.Lines)
				}
			}
		}
		_ = p.Describe([]byte(s))
	})
}

// FuzzLines: taking off what surrounds a paste never panics, keeps the paste's line
// numbers in order, and quoting a paste once more (a reply that quotes it) changes
// nothing outside fences.
func FuzzLines(f *testing.F) {
	f.Add("> PS C:\\> hnsdiag.exe list all\n> Networks:\n> Name  ID\n")
	f.Add("```\n> kubectl describe node w1\nName: w1\n```\n")
	f.Add("Dec 21 15:07:30 node-01 kubelet[26278]: I1221 15:07:30.342356   26278 helpers.go:836] x\n")
	f.Add("2021/12/22 18:37:59 GCEMetadataScripts: windows-startup-script-ps1:\n2021/12/22 18:37:59 GCEMetadataScripts: windows-startup-script-ps1: SERVICE_NAME: kubelet\n")
	f.Add("Conditions:" + strings.Repeat(" ", 229) + "  Type  Status" + strings.Repeat(" ", 223) + "  Ready True" + strings.Repeat(" ", 225))
	f.Fuzz(func(t *testing.T, s string) {
		p := New()
		ls := p.Lines(s)
		for i := 1; i < len(ls); i++ {
			if ls[i].No < ls[i-1].No {
				t.Fatalf("line %d after line %d", ls[i].No, ls[i-1].No)
			}
		}
		if strings.Contains(s, "```") || strings.Contains(s, "~~~") || strings.Contains(s, "\r") {
			return
		}
		var quoted strings.Builder
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			quoted.WriteString("> " + l + "\n")
		}
		plain, again := p.Split(s), p.Split(quoted.String())
		if len(plain) != len(again) {
			t.Fatalf("quoting changed the blocks: %d, then %d", len(plain), len(again))
		}
	})
}
