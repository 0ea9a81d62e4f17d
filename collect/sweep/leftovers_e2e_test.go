package sweep_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestLeftoverSandboxesRemovedOnContainerd: on a containerd node with a sandbox of a pod
// the API no longer has, RUNTIME-LEFTOVERS previews crictl stopp and rmp of exactly that
// sandbox; the fix runs over WinRM on the fake node, and the sweep after it passes.
func TestLeftoverSandboxesRemovedOnContainerd(t *testing.T) {
	const leftover = "5f1e0c7be2d94a0aa3c4d8e31b7f06a92c5d4e8f1a3b6c9d0e2f4a6b8c0d2e4f"
	fsys, meta, _, err := scenarios.Load("healthy-containerd-overlay")
	if err != nil {
		t.Fatal(err)
	}
	node := meta.Nodes[0]
	m := fstest.MapFS{}
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctrs := "nodes/" + node + "/containers.json"
	m[ctrs].Data = []byte(strings.Replace(string(m[ctrs].Data), `"items": [`, `"items": [
    {"id": "`+leftover+`", "metadata": {"name": "win-webserver-5c6d8d7b9f-old01", "uid": "0d4b8c51-1111-4f00-9c1e-6f2d0d6a0b11",
     "namespace": "default", "attempt": 0}, "state": "SANDBOX_NOTREADY"},`, 1))

	// The leftover's endpoint, as the CNI plugin made it (<id12>_<network>, shared by it).
	eps := "nodes/" + node + "/hns-endpoints.json"
	before := strings.Count(string(m[eps].Data), `"ID"`)
	m[eps].Data = []byte(strings.Replace(string(m[eps].Data), "[", `[
  {"ID": "9A1C3E57-0B2D-4F68-8E0A-1C2B3D4E5F60", "Name": "`+leftover[:12]+`_vxlan0", "IPAddress": "10.244.2.19",
   "SharedContainers": ["`+leftover+`"], "State": 3, "Type": "Overlay", "VirtualNetworkName": "vxlan0"},`, 1))

	p, ok := probes.Default().Get("RUNTIME-LEFTOVERS")
	if !ok {
		t.Fatal("no RUNTIME-LEFTOVERS probe")
	}
	f := probes.RunProbe(p, node, evidence.Evidence{FS: m})[0]
	if f.Status != probes.Fail || f.Fix == nil || f.Fix.Action != "fix-remove-sandboxes" || f.Fix.Disruptive {
		t.Fatalf("RUNTIME-LEFTOVERS: %s %q, fix %+v", f.Status, f.Summary, f.Fix)
	}
	ep := "crictl --runtime-endpoint npipe:////./pipe/containerd-containerd "
	if want := []string{ep + "stopp " + leftover, ep + "rmp " + leftover}; !slices.Equal(f.Fix.Commands, want) {
		t.Errorf("preview %q\nwant %q", f.Fix.Commands, want)
	}

	fake := fakenode.NewNode(fakenode.NodeOptions{Scenario: m, Node: node})
	tr, _ := over(t, transport.WinRM, fake, nil)
	// The IDs travel as the engine sends them, and one already gone is skipped.
	params := map[string]any{"Id": append(f.Fix.Params["Id"].([]string), "0000gone")}
	action := string(f.Fix.Action)
	files, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{action}, Params: map[string]map[string]any{action: params}})
	if err != nil {
		t.Fatal(err)
	}
	if out := string(files[action]); out != "removed "+leftover+"\r\nskipped 0000gone: no longer exists\r\n" || files[action+evidence.ErrSuffix] != nil {
		t.Fatalf("the fix printed %q (err %q)", out, files[action+evidence.ErrSuffix])
	}
	after, err := sweep.Run(t.Context(), tr, sweep.Request{Names: []string{"containers.json", "hns-endpoints.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if e := string(after["hns-endpoints.json"]); strings.Contains(e, leftover) || strings.Count(e, `"ID"`) != before {
		t.Errorf("stopping the sandbox must take its endpoint, and only it: %s", e)
	}
	m[ctrs].Data = after["containers.json"]
	if f := probes.RunProbe(p, node, evidence.Evidence{FS: m})[0]; f.Status != probes.Pass {
		t.Errorf("after the fix: %s %q %v", f.Status, f.Summary, f.Details)
	}
}
