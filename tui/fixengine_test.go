package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// engineFixer puts the screen on a real engine.Fixer, the way cmd's fleet does.
type engineFixer struct{ x *engine.Fixer }

func (e engineFixer) Preview(ctx context.Context, f probes.Finding) (string, error) {
	return e.x.PreviewBody(ctx, f.Node, f.Fix), nil
}

func (e engineFixer) Apply(ctx context.Context, f probes.Finding, typed string, _ func(string)) (engine.Outcome, error) {
	return e.x.Apply(ctx, f, f.Fix, engine.Typed(typed))
}

// treeKube carries the API fixes out on the evidence tree: a drain cordons the node in
// cluster/nodes.json (no pods to move), which is what NODE-SCHEDULING then reads.
type treeKube struct{ tree *evidence.Tree }

func (k treeKube) PatchPodCIDR(context.Context, string, string) error { return fmt.Errorf("not here") }
func (k treeKube) DeleteNode(context.Context, string) error           { return fmt.Errorf("not here") }
func (k treeKube) Taint(context.Context, string, string, string, string) error {
	return fmt.Errorf("not here")
}
func (k treeKube) PlanDrain(context.Context, string, kube.DrainOptions) (kube.DrainPlan, error) {
	return kube.DrainPlan{}, nil
}
func (k treeKube) Drain(ctx context.Context, node string, _ kube.DrainOptions) (kube.DrainResult, error) {
	return kube.DrainResult{}, k.Cordon(ctx, node)
}

func (k treeKube) Cordon(_ context.Context, node string) error {
	b, err := k.tree.Evidence().Read(evidence.PathNodes)
	if err != nil {
		return err
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	for _, n := range list.Items {
		if meta, _ := n["metadata"].(map[string]any); meta["name"] == node {
			spec, _ := n["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				n["spec"] = spec
			}
			spec["unschedulable"] = true
		}
	}
	doc["items"] = list.Items
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	k.tree.Put(evidence.PathNodes, out)
	return nil
}

// TestDrainVerifiedThroughTheEngine: HNS-NETWORK offers a drain (the network was built for
// another podCIDR); the engine verifies it by NODE-SCHEDULING showing the node cordoned, a
// warn. The screen used to judge "success" itself as status == pass and showed this
// verified drain as "! still warn"; it now shows the engine's Result.
func TestDrainVerifiedThroughTheEngine(t *testing.T) {
	fsys, meta, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	tree := evidence.NewTree()
	for _, dir := range []string{"cluster", "nodes/" + node} {
		if err := tree.CopyFrom(fsys, dir); err != nil {
			t.Fatal(err)
		}
	}
	tree.Put(evidence.NodeFile(node, evidence.FileHNSNetworks), []byte(`[{"Name":"nat","Type":"nat","Subnets":[{"AddressPrefix":"172.24.144.0/20"}]},`+
		`{"Name":"l2bridge","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.200.9.0/24","GatewayAddress":"10.200.9.1"}]}]`))
	x := &engine.Fixer{Engine: &engine.Engine{Registry: probes.Default(), Tree: tree}, Kube: treeKube{tree}}
	p, _ := probes.Default().Get("HNS-NETWORK")
	f := probes.RunProbe(p, node, tree.Evidence())[0]
	if f.Fix == nil || f.Fix.Action != probes.Drain {
		t.Fatalf("HNS-NETWORK offers no drain: %s %s %+v", f.Status, f.Summary, f.Fix)
	}
	be := newFakeBackend(map[string][]probes.Finding{node: {f}})
	m := started(t, testModel(t, Options{Nodes: []string{node}, Backend: be, Fixer: engineFixer{x}}, 100, 30))
	m = selectFinding(t, m, "HNS-NETWORK")
	d := press(t, m, runeKey('f'))
	mustContain(t, d.Model, "kubectl drain "+node+" --ignore-daemonsets")
	d = press(t, d.Model, append(append([]tea.KeyPressMsg{runeKey('y')}, typeText(node)...), kEnter)...)
	if d.dlg == nil || d.dlg.step != stepResult || d.dlg.failed || d.dlg.result == nil || d.dlg.result.Result != engine.Verified {
		t.Fatalf("a drain the engine verified: %+v", d.dlg)
	}
	mustContain(t, d.Model, "verified: ! NODE-SCHEDULING node is cordoned")
	mustNotContain(t, d.Model, "still warn")
}
