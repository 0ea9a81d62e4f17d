package main

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// extraCommands are the subcommands beyond analyze and version.
func extraCommands(_ context.Context, streams genericiooptions.IOStreams, live *liveOptions) []*cobra.Command {
	return []*cobra.Command{
		newDemoCmd(streams),
		newFixCmd(streams, live),
		newFakenodeCmd(streams),
		newSnapshotCmd(streams, live),
		newRedactCmd(streams),
		newDiffCmd(streams),
	}
}
