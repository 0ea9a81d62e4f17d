package fakenode

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

func testScenario() fstest.MapFS {
	return fstest.MapFS{
		"nodes/win-1/services.json":                         {Data: []byte(`[{"Name":"kubelet","State":"Stopped","StartMode":"Auto"}]`)},
		"nodes/win-1/routes.json.err":                       {Data: []byte("exit 1\nGet-NetRoute : Access is denied\n")},
		"after/fix-start-service/nodes/win-1/services.json": {Data: []byte(`[{"Name":"kubelet","State":"Running","StartMode":"Auto"}]`)},
		"after/fix-add-routes/result.err":                   {Data: []byte("exit 1\nNew-NetRoute : Instance MSFT_NetRoute already exists\n")},
	}
}

func sweep(t *testing.T, n *Node, calls ...scripts.Call) map[string]scripts.Result {
	t.Helper()
	script, err := scripts.Sweep(calls)
	if err != nil {
		t.Fatal(err)
	}
	r := n.Respond(context.Background(), scripts.CommandLine(), []byte(script))
	res, _, err := scripts.Split(r.Stdout)
	if err != nil {
		t.Fatalf("split: %v (stderr %q)", err, r.Stderr)
	}
	out := map[string]scripts.Result{}
	for _, x := range res {
		out[x.Name] = x
	}
	return out
}

func TestNodeAnswersSweepFromScenario(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: testScenario(), Node: "win-1", CmdletMissing: []string{"hns-networks.json"}})
	got := sweep(t, n, scripts.Call{Name: "services.json"}, scripts.Call{Name: "routes.json"},
		scripts.Call{Name: "hns-networks.json"}, scripts.Call{Name: "host.json"})
	if !strings.Contains(string(got["services.json"].Stdout), "Stopped") || got["services.json"].Exit != 0 {
		t.Errorf("services: %+v", got["services.json"])
	}
	if r := got["routes.json"]; r.Exit != 1 || !strings.Contains(string(r.Stderr), "Access is denied") {
		t.Errorf("recorded error: %+v", r)
	}
	if r := got["hns-networks.json"]; r.Exit != 1 || !strings.Contains(string(r.Stderr), "'Get-HnsNetwork' is not recognized") {
		t.Errorf("missing cmdlet: %+v", r)
	}
	if r := got["host.json"]; r.Exit != 1 {
		t.Errorf("evidence the scenario lacks must fail: %+v", r)
	}
	rec := n.Commands()
	if len(rec) != 1 || len(rec[0].Calls) != 4 {
		t.Fatalf("recorded %+v", rec)
	}
}

func TestNodeFixChangesState(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: testScenario(), Node: "win-1"})
	fix := sweep(t, n, scripts.Call{Name: "fix-start-service", Params: map[string]any{"Name": []string{"kubelet"}}})
	if fix["fix-start-service"].Exit != 0 {
		t.Fatalf("fix: %+v", fix)
	}
	got := sweep(t, n, scripts.Call{Name: "services.json"})
	if !strings.Contains(string(got["services.json"].Stdout), "Running") {
		t.Fatalf("state did not change: %s", got["services.json"].Stdout)
	}
	failing := sweep(t, n, scripts.Call{Name: "fix-add-routes"})
	if r := failing["fix-add-routes"]; r.Exit != 1 || !strings.Contains(string(r.Stderr), "already exists") {
		t.Fatalf("failing fix: %+v", r)
	}
	unknown := sweep(t, n, scripts.Call{Name: "fix-tag-image"})
	if unknown["fix-tag-image"].Exit == 0 {
		t.Fatal("a fix the scenario says nothing about must fail, not pretend")
	}
	if a := n.Applied(); len(a) != 1 || a[0] != "fix-start-service" {
		t.Fatalf("applied %v", a)
	}
	if p := n.Commands()[0].Params[0]["Name"].([]any)[0]; p != "kubelet" {
		t.Fatalf("params recorded %v", p)
	}
}

func TestNodeAnswersSnippetAlone(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: testScenario(), Node: "win-1"})
	body, _ := scripts.Body("services.json")
	// pywinrm's run_ps: powershell -encodedcommand <UTF-16LE base64>, no stdin.
	r := n.Respond(context.Background(), "powershell -encodedcommand "+scripts.EncodeCommand(body), nil)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "kubelet") || strings.Contains(string(r.Stdout), "@@WTS@@") {
		t.Fatalf("alone: %+v", r)
	}
	r = n.Respond(context.Background(), "powershell -encodedcommand "+scripts.EncodeCommand("Get-Date"), nil)
	if r.ExitCode == 0 || !strings.HasPrefix(string(r.Stderr), "#< CLIXML") {
		t.Fatalf("unknown script: %+v", r)
	}
	r = n.Respond(context.Background(), "ipconfig /all", nil)
	if r.ExitCode != 1 || !strings.Contains(string(r.Stderr), "is not recognized as an internal or external command") {
		t.Fatalf("cmd.exe: %+v", r)
	}
}

func TestNodeGarbage(t *testing.T) {
	n := NewNode(NodeOptions{Scenario: testScenario(), Node: "win-1", Garbage: true})
	script, _ := scripts.Sweep([]scripts.Call{{Name: "services.json"}})
	r := n.Respond(context.Background(), scripts.CommandLine(), []byte(script))
	if res, _, err := scripts.Split(r.Stdout); err == nil || len(res) != 0 {
		t.Fatalf("garbage parsed as a reply: %v %v", res, err)
	}
}

// TestFixWithCrictlWarningSucceeds: fix-sandbox-image's crictl pull warns on stderr at exit
// 0 on a containerd node; the frame is a success with a note, as the sweep frames it.
func TestFixWithCrictlWarningSucceeds(t *testing.T) {
	fsys := fstest.MapFS{
		"nodes/win-1/containerd-config.toml":                         {Data: []byte("version = 2\n")},
		"after/fix-sandbox-image/nodes/win-1/containerd-config.toml": {Data: []byte("version = 2\n")},
	}
	n := NewNode(NodeOptions{Scenario: fsys, Node: "win-1"})
	script, _ := scripts.Sweep([]scripts.Call{{Name: "fix-sandbox-image", Params: map[string]any{"Image": "x"}}})
	res, _, err := scripts.Split(n.Respond(context.Background(), scripts.CommandLine(), []byte(script)).Stdout)
	if err != nil || len(res) != 1 || res[0].Failed() || !strings.Contains(string(res[0].Notes), "level=warning") {
		t.Fatalf("%v %+v", err, res)
	}
}
