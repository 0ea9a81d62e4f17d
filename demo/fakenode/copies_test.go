package fakenode

import (
	"io/fs"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// TestCopiesServePywinrm: one copy of a fleet answers another client (pywinrm, NTLM over
// plain HTTP, run_ps as -EncodedCommand) with the scenario's evidence, and the fleet
// counts what it served, on that copy alone.
func TestCopiesServePywinrm(t *testing.T) {
	requirePywinrm(t)
	fsys, meta, _, err := scenarios.Load("healthy-sdn-l2bridge-docker")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ServeCopies(t.Context(), CopiesOptions{N: 3, Scenario: fsys, Node: meta.Nodes[0], User: winrmTestUser, Password: winrmTestPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const snippet = "disk.json"
	body, err := scripts.Body(snippet)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fs.ReadFile(fsys, "nodes/"+meta.Nodes[0]+"/"+snippet)
	if err != nil {
		t.Fatal(err)
	}
	got := runPywinrm(t, map[string]string{"WTS_URL": c.Servers[1].URL(), "WTS_PASS": winrmTestPassword,
		"WTS_TRANSPORT": "ntlm", "WTS_ENCRYPTION": "never", "WTS_MODE": "ps", "WTS_ARG": body})
	if got.Error != "" || got.Code != 0 || got.Stdout != string(want) {
		t.Fatalf("pywinrm on copy 2: %+v\nwant stdout %q", got, want)
	}
	requests, commands := c.Served()
	if commands != 1 || len(c.Nodes[1].Commands()) != 1 || len(c.Nodes[0].Commands())+len(c.Nodes[2].Commands()) != 0 {
		t.Errorf("commands: %d in all, %d on copy 2; want the one pywinrm ran, on copy 2", commands, len(c.Nodes[1].Commands()))
	}
	// pywinrm: NTLM negotiate and open shell, command, receive, signal, delete.
	if requests < 5 || requests != c.Servers[1].Requests() {
		t.Errorf("%d requests in all, %d on copy 2", requests, c.Servers[1].Requests())
	}
}
