package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestFleetDisplayNames: two members with the same node name (the demo's scenarios)
// stay apart: findings, events and evidence paths speak display names, and evidence
// read back through a display path comes from the right member.
func TestFleetDisplayNames(t *testing.T) {
	fl := engine.NewFleet(2)
	for _, name := range []string{"routes-missing", "healthy-sdn-l2bridge-docker"} { // both have a node win-1
		fsys, meta, _, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		node := meta.Nodes[0]
		tree := evidence.NewTree()
		if err := tree.CopyFrom(fsys, "cluster"); err != nil {
			t.Fatal(err)
		}
		cfg := serve(t, transport.WinRM, fakenode.NewNode(fakenode.NodeOptions{Scenario: fsys, Node: node}), nil)
		eng := &engine.Engine{Registry: probes.Default(), Dial: dial, Tree: tree}
		fl.Add(&engine.Member{Display: name, Target: engine.Target{Name: node, Transport: cfg}, Engine: eng,
			Fixer: &engine.Fixer{Engine: eng, Kube: &engine.MemCluster{Tree: tree}}})
	}
	var events []engine.Event
	findings := fl.Judge(context.Background(), nil, func(ev engine.Event) { events = append(events, ev) })
	if len(events) == 0 || events[len(events)-1].Kind != engine.Done {
		t.Fatal("no final Done event")
	}
	worst := map[string]probes.Status{}
	for _, f := range findings {
		worst[f.Node] = max(worst[f.Node], f.Status)
		for _, p := range f.Evidence {
			if strings.HasPrefix(p, "nodes/") && !strings.HasPrefix(p, "nodes/"+f.Node+"/") {
				t.Errorf("%s cites %s: not under its display name", f.Node, p)
			}
		}
	}
	if worst["routes-missing"] != probes.Fail || worst["healthy-sdn-l2bridge-docker"] >= probes.Fail {
		t.Fatalf("worst status per member: %v", worst)
	}
	b, err := fl.Evidence("routes-missing", "nodes/routes-missing/"+evidence.FileRoutes)
	if err != nil || len(b) == 0 {
		t.Fatalf("evidence through the display name: %d bytes, %v", len(b), err)
	}
	if _, err := fl.Evidence("nobody", "cluster/nodes.json"); err == nil {
		t.Error("evidence of an unknown member")
	}
}
