//go:build !nodemo

package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/demo"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

func newDemoCmd(streams genericiooptions.IOStreams) *cobra.Command {
	var out outputOptions
	var headless bool
	var only []string
	var hostProcess bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run against a built-in fleet of fake Windows nodes (no cluster, no Windows needed)",
		Long: strings.TrimSpace(`
Starts, in this process, one fake Windows node per recorded scenario, speaking real WinRM
(HTTPS and HTTP) and SSH on loopback, each with the cluster evidence of its scenario, and
opens the interactive screen on them. The mixed scenarios' Linux workers are fake Linux
nodes answering the shell sweep over SSH, shown beside the Windows nodes. Every failure kind the tool knows is in the fleet;
press f on a finding to watch a fix run and verify. Nothing leaves this machine.`),
		Example: strings.TrimSpace(`
  wintroubleshoot demo
  wintroubleshoot demo --report -o markdown
  wintroubleshoot demo --scenario podcidr-empty --scenario routes-missing`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Validate before the fleet starts: bad flags are usage errors either way.
			format, failOn, err := out.parse()
			if err != nil {
				return err
			}
			// An output format asked for is a report; the screen only on a terminal.
			headless = headless || cmd.Flags().Changed("output")
			if !headless {
				if err := screenTerminal(streams); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			fl, stop, err := demo.Start(ctx, demo.Options{Scenarios: only, HostProcess: hostProcess})
			if err != nil {
				return &exitError{code: report.ExitUsage, err: err}
			}
			defer stop()
			red, err := newRunRedactor(out.redactRules)
			if err != nil {
				return err
			}
			if !headless {
				return runTUI(ctx, streams, fl, "demo fleet", "demo", nil, red, nil)
			}
			findings := fl.Judge(ctx, nil, nil)
			if ctx.Err() != nil {
				return interrupted()
			}
			meta := report.Meta{Tool: "wintroubleshoot", Version: version, Source: "demo fleet"}
			return printFindings(ctx, streams, format, failOn, meta, findings, fl.Evidence, out, red)
		},
	}
	out.addFlags(cmd)
	cmd.Flags().BoolVar(&headless, "report", false, "print the findings instead of opening the screen")
	cmd.Flags().BoolVar(&hostProcess, "hostprocess", false, "also reach each scenario's node through a HostProcess pod on a real kube-apiserver on loopback (needs the binaries of fixtures/kubeapi/build.sh; a few seconds more to start)")
	cmd.Flags().StringArrayVar(&only, "scenario", nil, "only these scenarios (default: all of "+strings.Join(scenarios.Names(), ", ")+")")
	_ = cmd.RegisterFlagCompletionFunc("scenario", cobra.FixedCompletions(scenarios.Names(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// openDemo opens the whole demo fleet, for the default command when no kubeconfig exists.
func openDemo(ctx context.Context) (*engine.Fleet, func(), error) {
	return demo.Start(ctx, demo.Options{})
}
