// Package local runs a sweep on this machine, for wintroubleshoot running on the Windows
// node itself (an RDP session, a HostProcess pod) when WinRM and SSH are not at hand. On
// Windows it also reads HNS directly through hcsshim, so a build lacking the
// Get-HnsNetwork cmdlet still yields its networks.
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/decode"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
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
	out, err := run(ctx, cmd)
	if err != nil || t.readHNS == nil {
		return out, err
	}
	return t.fillHNS(out), nil
}

// fillHNS replaces a failed hns-networks.json frame (the cmdlet is missing on this build)
// with the networks read straight from HNS, keeping every other frame as it was.
func (t localTransport) fillHNS(out transport.Output) transport.Output {
	results, noise, err := scripts.Split(out.Stdout)
	if err != nil {
		return out
	}
	changed := false
	for i, r := range results {
		if r.Name != collectors.NodeHNSNetworks || !r.Failed() {
			continue
		}
		if b, herr := t.readHNS(); herr == nil {
			results[i] = scripts.Result{Name: r.Name, Stdout: b}
			changed = true
		} else {
			results[i].Stderr = append(results[i].Stderr, fmt.Sprintf("\nreading HNS directly failed too: %v", herr)...)
			changed = true
		}
	}
	if !changed {
		return out
	}
	var framed bytes.Buffer
	for _, n := range noise {
		framed.WriteString(n + "\r\n")
	}
	framed.Write(scripts.Frame(results))
	out.Stdout = framed.Bytes()
	return out
}

func (localTransport) Close() error { return nil }
