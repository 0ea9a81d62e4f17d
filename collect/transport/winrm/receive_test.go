package winrm

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

const receiveReply = `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell"><s:Body><rsp:ReceiveResponse>` +
	`<rsp:Stream Name="stdout" CommandId="C">aGVs</rsp:Stream><rsp:Stream Name="stderr" CommandId="C">ZXJy</rsp:Stream>` +
	`<rsp:Stream Name="stdout" CommandId="C">bG8=</rsp:Stream><rsp:Stream Name="stdout" CommandId="C" End="true"></rsp:Stream>` +
	`<rsp:CommandState CommandId="C" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>3</rsp:ExitCode></rsp:CommandState>` +
	`</rsp:ReceiveResponse></s:Body></s:Envelope>`

func TestParseReceive(t *testing.T) {
	var out output
	done, code, err := parseReceive([]byte(receiveReply), &out)
	if err != nil || !done || code != 3 || string(out.stdout) != "hello" || string(out.stderr) != "err" {
		t.Fatalf("done %v code %d err %v out %q stderr %q", done, code, err, out.stdout, out.stderr)
	}
	running := strings.Replace(receiveReply, "CommandState/Done", "CommandState/Running", 1)
	if done, _, err := parseReceive([]byte(running), &out); err != nil || done {
		t.Fatalf("running: done %v err %v", done, err)
	}
	if string(out.stdout) != "hellohello" || string(out.stderr) != "errerr" {
		t.Fatalf("a second reply must append to the first: %q %q", out.stdout, out.stderr)
	}
	damaged := strings.Replace(receiveReply, "aGVs", "a!Vs", 1)
	if _, _, err := parseReceive([]byte(damaged), &out); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged base64 accepted: %v", err)
	}
	if _, _, err := parseReceive([]byte(receiveReply[:200]), &out); err == nil {
		t.Fatal("a cut reply was accepted")
	}
}

func BenchmarkParseReceive(b *testing.B) {
	reply := []byte(receiveReply)
	buf := make([]byte, len(reply))
	for range b.N {
		copy(buf, reply) // the scan decodes in place
		var out output
		if _, _, err := parseReceive(buf, &out); err != nil {
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
		a, b := output{stdout: []byte("before ")}, output{stdout: []byte("before ")}
		d1, c1, ok, _ := scanReceive([]byte(r), &a)
		d2, c2, err := tokenizeReceive([]byte(r), &b)
		if !ok || err != nil || d1 != d2 || c1 != c2 || string(a.stdout) != string(b.stdout) || string(a.stderr) != string(b.stderr) {
			t.Errorf("%s: scan %v %v %d %q %q; tokenizer %v %d %q %q", name, ok, d1, c1, a.stdout, a.stderr, d2, c2, b.stdout, b.stderr)
		}
	}
	for name, r := range map[string]string{
		"entity":     strings.Replace(receiveReply, "aGVs", "aGVs&#x41;", 1),
		"cut":        receiveReply[:200],
		"CDATA":      strings.Replace(receiveReply, "aGVs", "<![CDATA[aGVs]]>", 1),
		"other name": strings.Replace(receiveReply, `Name="stderr"`, `Name="pr"`, 1),
		"bad exit":   strings.Replace(receiveReply, ">3<", ">x<", 1),
	} {
		out := output{stdout: []byte("kept")}
		reply := []byte(r)
		if _, _, ok, err := scanReceive(reply, &out); ok || err != nil || string(out.stdout) != "kept" || len(out.stderr) > 0 || string(reply) != r {
			t.Errorf("%s: the fast path took a reply it should leave to the tokenizer (err %v), or left output or the reply changed: %q %q", name, err, out.stdout, out.stderr)
		}
	}
	for name, r := range map[string]string{
		"damaged":     strings.Replace(receiveReply, "aGVs", "a!Vs", 1),
		"late damage": strings.Replace(receiveReply, "bG8=", "b!8=", 1),
		"bad length":  strings.Replace(receiveReply, "bG8=", "bG8", 1),
		"stderr":      strings.Replace(receiveReply, "ZXJy", "ZX!y", 1),
	} {
		out := output{stdout: []byte("kept")}
		if _, _, ok, err := scanReceive([]byte(r), &out); ok || err == nil || !strings.Contains(err.Error(), "damaged") || string(out.stdout) != "kept" || len(out.stderr) > 0 {
			t.Errorf("%s: ok %v err %v, out %q %q", name, ok, err, out.stdout, out.stderr)
		}
	}
}

func BenchmarkParseReceiveLarge(b *testing.B) {
	big := strings.Repeat("QUJD", 20000) // 80 KB of base64, as one sweep reply chunk
	reply := []byte(strings.Replace(receiveReply, "aGVs", big, 1))
	buf := make([]byte, len(reply))
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for range b.N {
		copy(buf, reply) // the scan decodes in place
		var out output
		if _, _, err := parseReceive(buf, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenizeReceiveLarge(b *testing.B) {
	big := strings.Repeat("QUJD", 20000)
	reply := []byte(strings.Replace(receiveReply, "aGVs", big, 1))
	b.SetBytes(int64(len(reply)))
	for range b.N {
		var out output
		if _, _, err := tokenizeReceive(reply, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func TestElementText(t *testing.T) {
	slow := func(string) (string, error) { return "from-slow", nil }
	created := `<s:Envelope><s:Body><x:ResourceCreated><w:SelectorSet><w:Selector Name="ShellId">AAA</w:Selector></w:SelectorSet>` +
		`</x:ResourceCreated><rsp:Shell><rsp:ShellId>AAA</rsp:ShellId></rsp:Shell></s:Body></s:Envelope>`
	if got, _ := elementText([]byte(created), "ShellId", slow); got != "AAA" {
		t.Errorf("ShellId %q", got)
	}
	selectorOnly := `<s:Envelope><s:Body><w:Selector Name="ShellId">AAA</w:Selector></s:Body></s:Envelope>`
	if got, _ := elementText([]byte(selectorOnly), "ShellId", slow); got != "from-slow" {
		t.Errorf("without a ShellId element the slow parser must decide, got %q", got)
	}
}

// TestDecodeInPlace: base64.StdEncoding.Decode writing into the bytes it reads, at or
// before their start, gives what decoding into a fresh buffer gives (scanReceive relies
// on it; the decoder reads each quantum before writing its shorter result).
func TestDecodeInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		data := make([]byte, rng.IntN(3000))
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		text := base64.StdEncoding.EncodeToString(data)
		if i%3 == 0 && len(text) > 76 {
			text = text[:76] + "\r\n" + text[76:] // line breaks, which the decoder skips
		}
		lead := rng.IntN(40) // the chunk starts after some markup; we write from 0
		buf := append(bytes.Repeat([]byte("<"), lead), text...)
		n, err := base64.StdEncoding.Decode(buf, buf[lead:])
		if err != nil || !bytes.Equal(buf[:n], data) {
			t.Fatalf("%d bytes after %d: decoded in place to %d bytes (%v), differs from the data", len(data), lead, n, err)
		}
	}
}

// TestScanReceiveManyChunks: chunks of stdout interleaved with stderr, decoded in place,
// come out in order, as the tokenizer reads them.
func TestScanReceiveManyChunks(t *testing.T) {
	var b strings.Builder
	var wantOut, wantErr []byte
	b.WriteString(`<s:Envelope><s:Body><rsp:ReceiveResponse>`)
	for i := range 40 {
		data := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i*37)
		name := "stdout"
		if i%7 == 3 {
			name, wantErr = "stderr", append(wantErr, data...)
		} else {
			wantOut = append(wantOut, data...)
		}
		b.WriteString(`<rsp:Stream Name="` + name + `" CommandId="C">` + base64.StdEncoding.EncodeToString(data) + `</rsp:Stream>`)
	}
	b.WriteString(`<rsp:CommandState CommandId="C" State="x/CommandState/Done"><rsp:ExitCode>0</rsp:ExitCode></rsp:CommandState></rsp:ReceiveResponse></s:Body></s:Envelope>`)
	var out, tok output
	done, _, ok, _ := scanReceive([]byte(b.String()), &out)
	if _, _, err := tokenizeReceive([]byte(b.String()), &tok); err != nil {
		t.Fatal(err)
	}
	if !ok || !done || !bytes.Equal(out.stdout, wantOut) || !bytes.Equal(out.stderr, wantErr) || !bytes.Equal(tok.stdout, wantOut) {
		t.Fatalf("ok %v done %v: %d/%d stdout bytes, %d/%d stderr bytes", ok, done, len(out.stdout), len(wantOut), len(out.stderr), len(wantErr))
	}
}
