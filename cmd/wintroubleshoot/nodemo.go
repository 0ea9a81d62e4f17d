//go:build nodemo

package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
)

// A build with -tags nodemo links no fake node, fake kubelet or embedded scenario: for
// packagers who want the smallest binary. The demo and fakenode commands then say so.
var errNoDemo = errors.New("this build of wintroubleshoot has no demo fleet (built with -tags nodemo); use a release build, or `go run ./cmd/wintroubleshoot demo` from the source")

func newDemoCmd(genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "demo", Short: "Run against a built-in fleet of fake Windows nodes (not in this build)",
		Args: cobra.ArbitraryArgs, DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error { return &exitError{code: 2, err: errNoDemo} }}
}

func newFakenodeCmd(genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "fakenode", Hidden: true, Args: cobra.ArbitraryArgs, DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error { return &exitError{code: 2, err: errNoDemo} }}
}

func openDemo(context.Context) (*engine.Fleet, func(), error) { return nil, nil, errNoDemo }
