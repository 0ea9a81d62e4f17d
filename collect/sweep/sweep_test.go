package sweep

import (
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

func TestSplitReplyKeepsFailuresApart(t *testing.T) {
	names := []string{evidence.FileHNSNetworks, evidence.FileRoutes, evidence.FileServices}
	out := transport.Output{Stdout: scripts.Frame([]scripts.Result{
		{Name: evidence.FileHNSNetworks, Exit: 1, Stderr: []byte("#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized_x000D__x000A_</S></Objs>")},
		{Name: evidence.FileRoutes, Stdout: []byte("[]")},
	})}
	files, err := SplitReply(names, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(files[evidence.FileRoutes]) != "[]" {
		t.Errorf("routes: %q", files[evidence.FileRoutes])
	}
	if _, ok := files[evidence.FileHNSNetworks]; ok {
		t.Error("a failed snippet with no output left an empty evidence file")
	}
	if e := string(files[evidence.FileHNSNetworks+evidence.ErrSuffix]); !strings.HasPrefix(e, "exit 1\nGet-HnsNetwork : The term") {
		t.Errorf("hns .err = %q", e)
	}
	if e := string(files[evidence.FileServices+evidence.ErrSuffix]); !strings.HasPrefix(e, "exit -1\n") {
		t.Errorf("missing snippet not recorded: %q", e)
	}
}

func TestSplitReplyGarbageAndScriptFailure(t *testing.T) {
	_, err := SplitReply([]string{evidence.FileHost}, transport.Output{Stdout: []byte("\xff\xfe garbage\r\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a sweep reply") {
		t.Fatalf("garbage: %v", err)
	}
	_, err = SplitReply([]string{evidence.FileHost}, transport.Output{ExitCode: 1,
		Stderr: []byte("#< CLIXML\r\n<Objs><S S=\"Error\">powershell.exe : execution of scripts is disabled_x000D__x000A_</S></Objs>")}, nil)
	if err == nil || !strings.Contains(err.Error(), "execution of scripts is disabled") {
		t.Fatalf("script failure: %v", err)
	}
}
