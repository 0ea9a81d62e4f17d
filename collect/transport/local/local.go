// Package local runs a sweep on this machine, for wintroubleshoot running on the Windows
// node itself (an RDP session, a HostProcess pod) when WinRM and SSH are not at hand. On
// Windows it also reads HNS directly through hcsshim, so a build lacking the
// Get-HnsNetwork cmdlet still yields its networks.
package local

import (
	"bytes"
	"context"
	"errors"
	"os/exec"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/evidence/decode"
)

// hnsReader reads the HNS networks as Get-HnsNetwork | ConvertTo-Json would print them.
type hnsReader func() ([]byte, error)

type localTransport struct {
	readHNS hnsReader // nil where HNS cannot be read directly
}

// run executes the command line with the body on stdin and honours ctx.
func run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	args := decode.SplitCommandLine(cmd.CommandLine)
	if len(args) == 0 {
		return transport.Output{}, errors.New("empty command line")
	}
	c := exec.CommandContext(ctx, args[0], args[1:]...)
	var stdout, stderr bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(cmd.Stdin), &stdout, &stderr
	err := c.Run()
	out := transport.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && ctx.Err() == nil:
		out.ExitCode = exit.ExitCode()
		return out, nil
	case err != nil:
		return out, &transport.Error{Kind: transport.Local, Addr: "localhost", Op: "run", Err: err,
			Hint: "run wintroubleshoot in an elevated PowerShell on the node"}
	}
	return out, nil
}

func (t localTransport) Run(ctx context.Context, cmd transport.Command) (transport.Output, error) {
	return run(ctx, cmd)
}

// Fallbacks implements sweep.FallbackSource: where Get-HnsNetwork is missing on this build,
// the sweep reads the networks straight from HNS instead. The sweep's frames stay as the
// node printed them; the sweep decides what to replace.
func (t localTransport) Fallbacks() map[string]func(context.Context) ([]byte, error) {
	if t.readHNS == nil {
		return nil
	}
	return map[string]func(context.Context) ([]byte, error){
		evidence.FileHNSNetworks: func(context.Context) ([]byte, error) { return t.readHNS() },
	}
}

func (localTransport) Close() error { return nil }
