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
