package scripts

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestEncodeDecodeCommand(t *testing.T) {
	for _, s := range []string{BootstrapScript, "Write-Output 'ü€𝄞'", ""} {
		got, err := DecodeCommand(EncodeCommand(s))
		if err != nil || got != s {
			t.Fatalf("round trip %q: %q %v", s, got, err)
		}
	}
	if len(CommandLine()) > 8191 {
		t.Fatalf("bootstrap command line is %d characters, over cmd.exe's 8191", len(CommandLine()))
	}
}

func TestSweepCarriesParamsAsDataOnly(t *testing.T) {
	// Every character that could break out of a PowerShell string or command.
	hostile := "a'b\"c$d`e\nf\r\ng; Remove-Item C:\\ -Recurse #\u2019\u201c$(whoami)"
	script, err := Sweep([]Call{
		{Name: "hns-networks.json"},
		{Name: "kube-proxy.log", Params: map[string]any{"Tail": 50}},
		{Name: "fix-start-service", Params: map[string]any{"Name": []string{hostile}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(script, "Remove-Item C:") || strings.Contains(script, "whoami") {
		t.Fatal("a parameter value reached the script source")
	}
	calls, ok, err := ParseSweep(script)
	if err != nil || !ok || len(calls) != 3 {
		t.Fatalf("ParseSweep: %v %v %d", ok, err, len(calls))
	}
	byName := map[string]Call{}
	for _, c := range calls {
		byName[c.Name] = c
	}
	got := byName["fix-start-service"].Params["Name"].([]any)[0].(string)
	if got != hostile {
		t.Fatalf("parameter changed in transit: %q", got)
	}
	if byName["kube-proxy.log"].Params["Tail"].(float64) != 50 {
		t.Fatalf("Tail %v", byName["kube-proxy.log"].Params["Tail"])
	}
}

func TestSweepRefusesUnknownAndBadNames(t *testing.T) {
	for _, n := range []string{"nope.json", "../etc", "A.json", "x'y"} {
		if _, err := Sweep([]Call{{Name: n}}); err == nil {
			t.Errorf("accepted %q", n)
		}
	}
}

func TestFrameSplitRoundTrip(t *testing.T) {
	in := []Result{
		{Name: "a.json", Stdout: []byte("{\r\n  \"x\":  1\r\n}"), Exit: 0},
		{Name: "b.json", Stderr: []byte("Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized"), Exit: 1},
		{Name: "c.log", Stdout: []byte("\xff\xfe binary \x00"), Exit: 0},
		{Name: "d.json", Exit: 0},
	}
	in[0].Notes = []byte("WARN[0000] image connect using default endpoints")
	reply := append([]byte("Windows PowerShell banner\r\n"), Frame(in)...)
	out, noise, err := Split(reply)
	if err != nil {
		t.Fatal(err)
	}
	if len(noise) != 1 || len(out) != len(in) {
		t.Fatalf("noise %v, %d results", noise, len(out))
	}
	for i := range in {
		if out[i].Name != in[i].Name || !bytes.Equal(out[i].Stdout, in[i].Stdout) || !bytes.Equal(out[i].Stderr, in[i].Stderr) || out[i].Exit != in[i].Exit || !bytes.Equal(out[i].Notes, in[i].Notes) {
			t.Errorf("result %d: got %+v want %+v", i, out[i], in[i])
		}
	}
}

func TestSplitTruncated(t *testing.T) {
	full := Frame([]Result{{Name: "a.json", Stdout: []byte("1")}, {Name: "b.json", Stdout: []byte("2")}})
	cut := full[:len(full)/2]
	out, _, err := Split(cut)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("want ErrTruncated, got %v", err)
	}
	if len(out) > 1 {
		t.Fatalf("kept a damaged frame: %+v", out)
	}
	// Damaged base64 in a frame is an error, not silently wrong evidence.
	if _, _, err := Split([]byte(marker + " a.json 0 !!!! \r\n" + marker + " END 1\r\n")); err == nil {
		t.Fatal("accepted damaged base64")
	}
}

func TestDecodeCLIXML(t *testing.T) {
	in := "#< CLIXML\r\n<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">" +
		"<Obj S=\"progress\" RefId=\"0\"><TN RefId=\"0\"><T>System.Management.Automation.PSCustomObject</T></TN></Obj>" +
		"<S S=\"Error\">Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized_x000D__x000A_</S>" +
		"<S S=\"Error\">At line:1 char:1_x000D__x000A_</S></Objs>"
	got := DecodeCLIXML([]byte(in))
	want := "Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized\nAt line:1 char:1"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if DecodeCLIXML([]byte("plain error")) != "plain error" {
		t.Fatal("plain text changed")
	}
	trunc := "#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">cut"
	if DecodeCLIXML([]byte(trunc)) != trunc {
		t.Fatal("truncated CLIXML lost its text")
	}
}

func TestEverySnippetAndFixIsEmbedded(t *testing.T) {
	if len(Snippets()) < 10 || len(Fixes()) < 5 {
		t.Fatalf("snippets %v fixes %v", Snippets(), Fixes())
	}
	for _, n := range append(Snippets(), Fixes()...) {
		b, err := Body(n)
		if err != nil || strings.TrimSpace(b) == "" {
			t.Errorf("%s: %v", n, err)
		}
		if strings.Contains(b, "\r") {
			t.Errorf("%s: CR left in the body", n)
		}
	}
}
