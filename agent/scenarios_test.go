package agent_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/agent"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// agentView is what an agent on a scenario's node has: the node's files, the pods on it
// and its own Node object (NodeAndPods), none of the other cluster lists.
func agentView(t *testing.T, root fs.FS, node string) fs.FS {
	t.Helper()
	files := map[string][]byte{}
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasPrefix(p, "nodes/") || p == evidence.PathPods) {
			return err
		}
		b, err := fs.ReadFile(root, p)
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(root, evidence.PathNodes); err == nil {
		files[evidence.PathNodes] = ownNode(t, b, node)
	}
	return evidence.FilesFS(files)
}

// ownNode keeps one node of a NodeList.
func ownNode(t *testing.T, b []byte, node string) []byte {
	t.Helper()
	var list struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var own []map[string]any
	for _, it := range list.Items {
		if md, _ := it["metadata"].(map[string]any); md["name"] == node {
			own = append(own, it)
		}
	}
	list.Items = own
	out, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAgentJudgementOnScenarios: on every recorded scenario, what an agent judges from
// its node's own evidence agrees with the scenario's expectations: no warning or
// failure where the scenario expects a pass or a skip (a false alarm on a healthy node
// is as bad as a miss), and the count of expected failures it still catches is logged.
func TestAgentJudgementOnScenarios(t *testing.T) {
	reg := probes.Default()
	var alarms []string
	caught, judged := 0, 0
	for _, name := range scenarios.Names() {
		root, err := fs.Sub(scenarios.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		var exp []scenarios.Expected
		b, err := fs.ReadFile(root, "expected.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &exp); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		nodes := map[string]bool{}
		for _, e := range exp {
			want[e.Node+" "+e.Probe], nodes[e.Node] = e.Status, true
		}
		for node := range nodes {
			view := agentView(t, root, node)
			if _, err := fs.Stat(view, "nodes/"+node); err != nil {
				continue // a node the scenario judges from cluster evidence only
			}
			a := &agent.Agent{Node: node, Source: scenarioSource{view}, Registry: reg}
			for _, f := range a.SweepOnce(context.Background()).Findings {
				judged++
				w := want[node+" "+f.Probe]
				switch {
				case f.Status >= probes.Warn && (w == "pass" || w == "skip"):
					alarms = append(alarms, name+" "+node+" "+f.Probe+" "+f.Status.String()+" (expected "+w+"): "+f.Summary)
				case f.Status >= probes.Warn:
					caught++
				}
			}
		}
	}
	t.Logf("%d findings judged, %d expected warnings/failures caught, %d false alarms", judged, caught, len(alarms))
	for _, a := range alarms {
		t.Errorf("false alarm: %s", a)
	}
}
