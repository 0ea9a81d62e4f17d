package collectors

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

func TestSplitReplyKeepsFailuresApart(t *testing.T) {
	names := []string{NodeHNSNetworks, NodeRoutes, NodeServices}
	out := transport.Output{Stdout: scripts.Frame([]scripts.Result{
		{Name: NodeHNSNetworks, Exit: 1, Stderr: []byte("#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized_x000D__x000A_</S></Objs>")},
		{Name: NodeRoutes, Stdout: []byte("[]")},
	})}
	files, err := SplitReply(names, out)
	if err != nil {
		t.Fatal(err)
	}
	if string(files[NodeRoutes]) != "[]" {
		t.Errorf("routes: %q", files[NodeRoutes])
	}
	if _, ok := files[NodeHNSNetworks]; ok {
		t.Error("a failed snippet with no output left an empty evidence file")
	}
	if e := string(files[NodeHNSNetworks+ErrSuffix]); !strings.HasPrefix(e, "exit 1\nGet-HnsNetwork : The term") {
		t.Errorf("hns .err = %q", e)
	}
	if e := string(files[NodeServices+ErrSuffix]); !strings.HasPrefix(e, "exit -1\n") {
		t.Errorf("missing snippet not recorded: %q", e)
	}
}

func TestSplitReplyGarbageAndScriptFailure(t *testing.T) {
	_, err := SplitReply([]string{NodeHost}, transport.Output{Stdout: []byte("\xff\xfe garbage\r\n")})
	if err == nil || !strings.Contains(err.Error(), "not a sweep reply") {
		t.Fatalf("garbage: %v", err)
	}
	_, err = SplitReply([]string{NodeHost}, transport.Output{ExitCode: 1,
		Stderr: []byte("#< CLIXML\r\n<Objs><S S=\"Error\">powershell.exe : execution of scripts is disabled_x000D__x000A_</S></Objs>")})
	if err == nil || !strings.Contains(err.Error(), "execution of scripts is disabled") {
		t.Fatalf("script failure: %v", err)
	}
}

func TestEvidenceMissingCarriesWhy(t *testing.T) {
	tr := NewTree()
	tr.Put("nodes/win-1/hns-networks.json.err", []byte("exit 1\nGet-HnsNetwork : not recognized\n"))
	tr.Put("nodes/win-2/sweep.err", []byte("winrm 10.0.0.2:5986: connect: connection refused\n"))
	ev := tr.Evidence()
	_, err := ev.Read("nodes/win-1/hns-networks.json")
	if err == nil || !strings.Contains(err.Error(), "exit 1: Get-HnsNetwork : not recognized") {
		t.Fatalf("got %v", err)
	}
	_, err = ev.Read("nodes/win-2/routes.json")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("got %v", err)
	}
	if got := ev.Nodes(); len(got) != 2 || got[0] != "win-1" {
		t.Fatalf("nodes %v", got)
	}
}
