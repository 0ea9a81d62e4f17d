// Package demo is the built-in fleet of fake Windows (and Linux) nodes: one per recorded
// scenario, speaking real WinRM and SSH on loopback (demo/fakenode), each with its
// scenario's cluster evidence, and optionally reached through HostProcess pods on a real
// kube-apiserver. The product reaches the fakes only through this package, from the
// demo command; a build with -tags nodemo leaves it out.
package demo

import (
	"context"
	"fmt"
	"io"
	"os/user"
	"path/filepath"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transports"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Options choose the demo fleet's scenarios and how its nodes are reached.
type Options struct {
	// Scenarios are the scenarios to start (default: all of them).
	Scenarios []string
	// HostProcess also reaches each scenario's node through a HostProcess pod on a real
	// kube-apiserver on loopback (needs the binaries of fixtures/kubeapi/build.sh).
	HostProcess bool
}

// Start starts the fake fleet and a member per scenario. Each member's engine holds its
// scenario's cluster evidence; API-side fixes edit that evidence in memory. The returned
// func stops every fake node.
func Start(ctx context.Context, o Options) (*engine.Fleet, func(), error) {
	only, hostProcess := o.Scenarios, o.HostProcess
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
			eng := &engine.Engine{Registry: probes.Default(), Dial: transports.Registry().Dialer(io.Discard), Concurrency: 1, Tree: tree}
			fx = &engine.Fixer{Engine: eng, Targets: map[string]engine.Target{}, Kube: &engine.MemCluster{Tree: tree}, Audit: audit, User: who}
			fixers[m.Scenario] = fx
		}
		t := engine.Target{Name: m.Node, Transport: m.Config}
		if fakenode.IsLinuxNode(m.FS, m.Node) {
			t.OS = evidence.Linux
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
