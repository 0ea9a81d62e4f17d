package sweep

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

func TestSplitReplyKeepsFailuresApart(t *testing.T) {
	names := []string{collectors.NodeHNSNetworks, collectors.NodeRoutes, collectors.NodeServices}
	out := transport.Output{Stdout: scripts.Frame([]scripts.Result{
		{Name: collectors.NodeHNSNetworks, Exit: 1, Stderr: []byte("#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized_x000D__x000A_</S></Objs>")},
		{Name: collectors.NodeRoutes, Stdout: []byte("[]")},
	})}
	files, err := SplitReply(names, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(files[collectors.NodeRoutes]) != "[]" {
		t.Errorf("routes: %q", files[collectors.NodeRoutes])
	}
	if _, ok := files[collectors.NodeHNSNetworks]; ok {
		t.Error("a failed snippet with no output left an empty evidence file")
	}
	if e := string(files[collectors.NodeHNSNetworks+collectors.ErrSuffix]); !strings.HasPrefix(e, "exit 1\nGet-HnsNetwork : The term") {
		t.Errorf("hns .err = %q", e)
	}
	if e := string(files[collectors.NodeServices+collectors.ErrSuffix]); !strings.HasPrefix(e, "exit -1\n") {
		t.Errorf("missing snippet not recorded: %q", e)
	}
}

func TestSplitReplyGarbageAndScriptFailure(t *testing.T) {
	_, err := SplitReply([]string{collectors.NodeHost}, transport.Output{Stdout: []byte("\xff\xfe garbage\r\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a sweep reply") {
		t.Fatalf("garbage: %v", err)
	}
	_, err = SplitReply([]string{collectors.NodeHost}, transport.Output{ExitCode: 1,
		Stderr: []byte("#< CLIXML\r\n<Objs><S S=\"Error\">powershell.exe : execution of scripts is disabled_x000D__x000A_</S></Objs>")}, nil)
	if err == nil || !strings.Contains(err.Error(), "execution of scripts is disabled") {
		t.Fatalf("script failure: %v", err)
	}
}
