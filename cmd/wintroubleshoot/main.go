// Command wintroubleshoot finds out why a Windows node of a Kubernetes cluster is broken,
// and fixes it. This package binds flags to the libraries below it (engine, report,
// tui, ingest, collect) and prints; the work is theirs, so every front end behaves alike.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
)

func main() {
	sweep.TuneGC(os.Getenv) // for the process's life: a fleet sweep's garbage is short-lived buffers
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// argv[0] says whether kubectl started us as a plugin (kubectl-wintroubleshoot).
	code := RunAs(ctx, genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args[0], os.Args[1:])
	stop()
	os.Exit(code)
}
