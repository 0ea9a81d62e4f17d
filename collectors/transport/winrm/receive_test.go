package winrm

import (
	"bytes"
	"strings"
	"testing"
)

const receiveReply = `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell"><s:Body><rsp:ReceiveResponse>` +
	`<rsp:Stream Name="stdout" CommandId="C">aGVs</rsp:Stream><rsp:Stream Name="stderr" CommandId="C">ZXJy</rsp:Stream>` +
	`<rsp:Stream Name="stdout" CommandId="C">bG8=</rsp:Stream><rsp:Stream Name="stdout" CommandId="C" End="true"></rsp:Stream>` +
	`<rsp:CommandState CommandId="C" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>3</rsp:ExitCode></rsp:CommandState>` +
	`</rsp:ReceiveResponse></s:Body></s:Envelope>`

func TestParseReceive(t *testing.T) {
	var out, errOut bytes.Buffer
	done, code, err := parseReceive(receiveReply, &out, &errOut)
	if err != nil || !done || code != 3 || out.String() != "hello" || errOut.String() != "err" {
		t.Fatalf("done %v code %d err %v out %q stderr %q", done, code, err, out.String(), errOut.String())
	}
	running := strings.Replace(receiveReply, "CommandState/Done", "CommandState/Running", 1)
	if done, _, err := parseReceive(running, &out, &errOut); err != nil || done {
		t.Fatalf("running: done %v err %v", done, err)
	}
	damaged := strings.Replace(receiveReply, "aGVs", "a!Vs", 1)
	if _, _, err := parseReceive(damaged, &out, &errOut); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged base64 accepted: %v", err)
	}
	if _, _, err := parseReceive(receiveReply[:200], &out, &errOut); err == nil {
		t.Fatal("a cut reply was accepted")
	}
}

func BenchmarkParseReceive(b *testing.B) {
	for range b.N {
		var out, errOut bytes.Buffer
		if _, _, err := parseReceive(receiveReply, &out, &errOut); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScanReceiveAgreesWithTheTokenizer: the fast path and encoding/xml read the same
// replies alike, and the fast path steps aside for what it does not handle.
func TestScanReceiveAgreesWithTheTokenizer(t *testing.T) {
	replies := map[string]string{
		"plain":        receiveReply,
		"running":      strings.Replace(receiveReply, "CommandState/Done", "CommandState/Running", 1),
		"self-closing": strings.Replace(receiveReply, `<rsp:CommandState CommandId="C" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>3</rsp:ExitCode></rsp:CommandState>`, `<rsp:CommandState CommandId="C" State="x/CommandState/Running"/>`, 1),
		"other prefix": strings.ReplaceAll(receiveReply, "rsp:", "p:"),
		"whitespace":   strings.Replace(receiveReply, ">aGVs<", ">\r\n aGVs\r\n<", 1),
	}
	for name, r := range replies {
		var a, aErr, b, bErr bytes.Buffer
		d1, c1, ok := scanReceive(r, &a, &aErr)
		d2, c2, err := tokenizeReceive(r, &b, &bErr)
		if !ok || err != nil || d1 != d2 || c1 != c2 || a.String() != b.String() || aErr.String() != bErr.String() {
			t.Errorf("%s: scan %v %v %d %q %q; tokenizer %v %d %q %q", name, ok, d1, c1, a.String(), aErr.String(), d2, c2, b.String(), bErr.String())
		}
	}
	for name, r := range map[string]string{
		"entity":  strings.Replace(receiveReply, "aGVs", "aGVs&#x41;", 1),
		"cut":     receiveReply[:200],
		"damaged": strings.Replace(receiveReply, "aGVs", "a!Vs", 1),
		"CDATA":   strings.Replace(receiveReply, "aGVs", "<![CDATA[aGVs]]>", 1),
	} {
		var out, errOut bytes.Buffer
		if _, _, ok := scanReceive(r, &out, &errOut); ok || out.Len() > 0 {
			t.Errorf("%s: the fast path took a reply it should leave to the tokenizer", name)
		}
	}
}

func BenchmarkParseReceiveLarge(b *testing.B) {
	big := strings.Repeat("QUJD", 20000) // 80 KB of base64, as one sweep reply chunk
	reply := strings.Replace(receiveReply, "aGVs", big, 1)
	b.SetBytes(int64(len(reply)))
	for range b.N {
		var out, errOut bytes.Buffer
		if _, _, err := parseReceive(reply, &out, &errOut); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenizeReceiveLarge(b *testing.B) {
	big := strings.Repeat("QUJD", 20000)
	reply := strings.Replace(receiveReply, "aGVs", big, 1)
	b.SetBytes(int64(len(reply)))
	for range b.N {
		var out, errOut bytes.Buffer
		if _, _, err := tokenizeReceive(reply, &out, &errOut); err != nil {
			b.Fatal(err)
		}
	}
}

func TestElementText(t *testing.T) {
	slow := func(string) (string, error) { return "from-slow", nil }
	created := `<s:Envelope><s:Body><x:ResourceCreated><w:SelectorSet><w:Selector Name="ShellId">AAA</w:Selector></w:SelectorSet>` +
		`</x:ResourceCreated><rsp:Shell><rsp:ShellId>AAA</rsp:ShellId></rsp:Shell></s:Body></s:Envelope>`
	if got, _ := elementText(created, "ShellId", slow); got != "AAA" {
		t.Errorf("ShellId %q", got)
	}
	selectorOnly := `<s:Envelope><s:Body><w:Selector Name="ShellId">AAA</w:Selector></s:Body></s:Envelope>`
	if got, _ := elementText(selectorOnly, "ShellId", slow); got != "from-slow" {
		t.Errorf("without a ShellId element the slow parser must decide, got %q", got)
	}
}
