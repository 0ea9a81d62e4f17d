package local

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
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

// TestFallbacksOnlyWhereHNSIsReadable: the HNS fallback is offered to the sweep only when
// this build can read HNS directly, and it returns what the reader returns.
func TestFallbacksOnlyWhereHNSIsReadable(t *testing.T) {
	if fbs := (localTransport{}).Fallbacks(); len(fbs) != 0 {
		t.Fatalf("fallbacks without an HNS reader: %v", fbs)
	}
	tr := localTransport{readHNS: func() ([]byte, error) { return []byte(`[{"Name":"nat","Type":"nat"}]`), nil }}
	fb := tr.Fallbacks()[evidence.FileHNSNetworks]
	if fb == nil {
		t.Fatal("no fallback for hns-networks.json")
	}
	if b, err := fb(t.Context()); err != nil || !strings.Contains(string(b), `"nat"`) {
		t.Fatalf("%q %v", b, err)
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
