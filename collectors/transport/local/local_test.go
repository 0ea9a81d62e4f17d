package local

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
)

func TestNewOffWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows the local transport works")
	}
	_, err := New()
	var te *transport.Error
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "only on Windows") {
		t.Fatalf("got %v", err)
	}
}

// TestFillHNS: a failed Get-HnsNetwork frame is replaced by the direct HNS read; other
// frames are kept byte for byte.
func TestFillHNS(t *testing.T) {
	reply := scripts.Frame([]scripts.Result{
		{Name: collectors.NodeHNSNetworks, Exit: 1, Stderr: []byte("Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized")},
		{Name: collectors.NodeRoutes, Stdout: []byte("[]\r\n")},
	})
	tr := localTransport{readHNS: func() ([]byte, error) { return []byte(`[{"Name":"nat","Type":"nat"}]`), nil }}
	out := tr.fillHNS(transport.Output{Stdout: reply})
	res, _, err := scripts.Split(out.Stdout)
	if err != nil || len(res) != 2 {
		t.Fatalf("%v %v", res, err)
	}
	if res[0].Failed() || !strings.Contains(string(res[0].Stdout), `"nat"`) || string(res[1].Stdout) != "[]\r\n" {
		t.Fatalf("got %+v", res)
	}
	broken := localTransport{readHNS: func() ([]byte, error) { return nil, errors.New("HNS not running") }}
	res, _, _ = scripts.Split(broken.fillHNS(transport.Output{Stdout: reply}).Stdout)
	if !res[0].Failed() || !strings.Contains(string(res[0].Stderr), "HNS not running") {
		t.Fatalf("got %+v", res[0])
	}
}

// TestRunHonoursExitAndCancel runs a real process (here: sh) to check exit codes, stdin
// and cancellation.
func TestRunHonoursExitAndCancel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	out, err := run(context.Background(), transport.Command{CommandLine: `sh -c "cat; exit 3"`, Stdin: []byte("body")})
	if err != nil || out.ExitCode != 3 || string(out.Stdout) != "body" {
		t.Fatalf("%+v %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, transport.Command{CommandLine: "sleep 5"}); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
}
