package main

import (
	"context"
	"fmt"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
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
			ctx := cmd.Context()
			fl, stop, err := startDemo(ctx, only, hostProcess)
			if err != nil {
				return &exitError{code: report.ExitUsage, err: err}
			}
			defer stop()
			red, err := newRunRedactor(out.redactRules)
			if err != nil {
				return err
			}
			if !headless {
				return runTUI(ctx, streams, fl, "demo fleet", "demo", nil, red)
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
	return cmd
}

// startDemo starts the fake fleet and a member per scenario. Each member's engine holds
// its scenario's cluster evidence; API-side fixes edit that evidence in memory.
func startDemo(ctx context.Context, only []string, hostProcess bool) (*engine.Fleet, func(), error) {
	names := only
	if len(names) == 0 {
		names = scenarios.Names()
	}
	var scs []fakenode.FleetScenario
	for _, n := range names {
		fsys, meta, _, err := scenarios.Load(n)
		if err != nil {
			return nil, nil, fmt.Errorf("loading scenario %s: %w", n, err)
		}
		for _, node := range meta.Nodes {
			scs = append(scs, fakenode.FleetScenario{Name: n, Node: node, FS: fsys})
		}
	}
	// A scenario's Linux workers are fake Linux nodes (sh over SSH), the rest Windows.
	fakes, err := fakenode.StartMixedFleet(ctx, scs)
	if err != nil {
		return nil, nil, err
	}
	who := "demo"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	fl := engine.NewFleet(16)
	audit := &engine.Audit{Path: filepath.Join(fakes.Dir, "audit.jsonl")}
	fixer := func(eng *engine.Engine, t engine.Target, tree *evidence.Tree) *engine.Fixer {
		return &engine.Fixer{Engine: eng, Targets: map[string]engine.Target{t.Name: t}, Kube: &engine.MemCluster{Tree: tree},
			Audit: audit, User: who}
	}
	perScenario := map[string]int{}
	for _, sc := range scs {
		perScenario[sc.Name]++
	}
	// A scenario's members share one engine (and tree), as a live run's nodes do: a
	// Windows node's NET-ROUTES reads its Linux peers' routes from that tree.
	fixers := map[string]*engine.Fixer{}
	for _, m := range fakes.Members {
		fx := fixers[m.Scenario]
		if fx == nil {
			tree := evidence.NewTree()
			// Cluster evidence only: node evidence comes over the wire from the fake node.
			if err := tree.CopyFrom(m.FS, "cluster"); err != nil {
				fakes.Close()
				return nil, nil, fmt.Errorf("scenario %s: %w", m.Scenario, err)
			}
			eng := &engine.Engine{Registry: probes.Default(), Dial: transportRegistry().dialer(nopWriter{}), Concurrency: 1, Tree: tree}
			fx = &engine.Fixer{Engine: eng, Targets: map[string]engine.Target{}, Kube: &engine.MemCluster{Tree: tree}, Audit: audit, User: who}
			fixers[m.Scenario] = fx
		}
		t := engine.Target{Name: m.Node, Transport: m.Config}
		if fakenode.IsLinuxNode(m.FS, m.Node) {
			t.OS = sweep.Linux
		}
		display := m.Scenario
		if perScenario[m.Scenario] > 1 { // a mixed cluster: its nodes apart
			display = m.Scenario + "." + m.Node
		}
		fx.Targets[m.Node] = t
		fl.Add(&engine.Member{Display: display, Target: t, Engine: fx.Engine, Fixer: fx})
	}
	if !hostProcess {
		return fl, func() { fakes.Close() }, nil
	}
	stopHP, err := addHostProcessDemo(ctx, fl, names, fixer)
	if err != nil {
		fakes.Close()
		return nil, nil, err
	}
	return fl, func() { stopHP(); fakes.Close() }, nil
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
