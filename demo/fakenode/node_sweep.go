package fakenode

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// crictlWarning is what crictl prints on stderr, at exit 0, when an endpoint is left to its
// defaults (kubernetes-sigs/cri-tools#703; older crictl also for the image endpoint).
// On a containerd node the fake adds it to every crictl snippet's frame the way the sweep
// script frames native stderr at exit 0: as a note, not an error.
const crictlWarning = `time="2024-05-02T09:14:07Z" level=warning msg="image connect using default endpoints: ` +
	`[npipe:////./pipe/containerd-containerd npipe:////./pipe/cri-dockerd]. ` +
	`As the default settings are now deprecated, you should set the endpoint instead."`

// invoke runs one call of a sweep as Invoke-WtsCall would: a snippet the faults say hangs
// is stopped at the call's limit ("timed out after N s") or, with no limit, blocks until
// the client gives up (finished false).
//
// src is the call's source in the script the client sent (callSource), which the log
// snippets' answers depend on (answerLog).
func (n *Node) invoke(ctx context.Context, c scripts.Call, src string, faults FaultSet) (r scripts.Result, finished bool) {
	if slices.Contains(faults.HangSnippets, c.Name) {
		if c.Limit <= 0 {
			<-ctx.Done()
			return scripts.Result{}, false
		}
		t := time.NewTimer(c.Limit)
		defer t.Stop()
		select {
		case <-t.C:
			return scripts.Result{Name: c.Name, Exit: scripts.ExitTimedOut, Stderr: []byte(scripts.TimedOut(c.Name, c.Limit))}, true
		case <-ctx.Done():
			return scripts.Result{}, false
		}
	}
	r = n.callFrom(c, src)
	crictl := c.Name == "images.json" || c.Name == "containers.json" || c.Name == "fix-sandbox-image" // on a containerd node
	if r.Exit == 0 && crictl && n.containerd() {
		r.Notes = []byte(crictlWarning)
	}
	return r, true
}

// containerd says the node's runtime is containerd: its config was collected.
func (n *Node) containerd() bool {
	_, err := fs.Stat(n.opts.Scenario, path.Join("nodes", n.opts.Node, "containerd-config.toml"))
	return err == nil
}

// languageMode answers a script that reads stdin the way PowerShell does outside
// FullLanguage: the sweep bootstrap refuses with its own words; any other such script
// fails on [Console]::In, which that mode blocks.
func (n *Node) languageMode(commandLine string) (Reply, bool) {
	mode := n.opts.LanguageMode
	if mode == "" || strings.EqualFold(mode, "FullLanguage") {
		return Reply{}, false
	}
	encoded, fromStdin, _ := scriptSource(commandLine)
	switch {
	case encoded == scripts.BootstrapScript:
		return psError(scripts.RefuseLanguageMode(mode, strings.ToUpper(n.opts.Node))), true
	case fromStdin || strings.Contains(encoded, "[Console]::In"):
		return psError("Cannot invoke method. Method invocation is supported only on core types in this language mode."), true
	}
	return Reply{}, false
}

// callFrom is call for a snippet whose source the client sent: a log snippet is answered
// from the klog files the scenario declares (node_logs.go).
func (n *Node) callFrom(c scripts.Call, src string) scripts.Result {
	r := n.call(c)
	if r.Exit != 0 {
		return r
	}
	if out, notes := bound(c, r.Stdout); notes != nil {
		r.Stdout = out
		r.Notes = []byte(strings.Join(notes, "\n"))
	}
	if out, errText, ok := n.answerLog(c.Name, src, r.Stdout); ok {
		if errText != "" {
			return scripts.Result{Name: c.Name, Exit: 1, Stderr: []byte(errText)}
		}
		r.Stdout = out
	}
	return r
}

// callSource is the text of one call in a sweep script: from its "# wts:call" line to
// the next call's or the end marker.
func callSource(script, name string) string {
	start := strings.Index(script, "# wts:call "+name+" ")
	if start < 0 {
		return ""
	}
	rest := script[start+1:]
	end := len(rest)
	for _, next := range []string{"\n# wts:call ", "\n'@@WTS@@ END"} {
		if i := strings.Index(rest, next); i >= 0 && i < end {
			end = i
		}
	}
	return rest[:end]
}

// removeSandboxes models fix-remove-sandboxes on a containerd node: each listed sandbox
// still in containers.json (`crictl pods -o json`) is stopped and removed, so it leaves
// that file, and stopping it tears its network down (the CNI DEL), so the HNS endpoint
// it shared (SharedContainers) leaves hns-endpoints.json; an ID no longer there is
// reported and skipped, as the script does. On a node whose runtime is not containerd,
// crictl finds no CRI pipe.
func (n *Node) removeSandboxes(c scripts.Call) scripts.Result {
	fail := func(msg string) scripts.Result { return scripts.Result{Name: c.Name, Exit: 1, Stderr: []byte(msg)} }
	var ids []string
	switch v := c.Params["Id"].(type) {
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return fail(fmt.Sprintf("Cannot convert %v to System.String[]", x))
			}
			ids = append(ids, s)
		}
	case string:
		ids = []string{v}
	}
	raw, ok := n.file("containers.json")
	if !n.containerd() || !ok {
		return fail("crictl pods failed (exit 1): time=\"2024-05-02T09:14:07Z\" level=fatal msg=\"validate service connection: " +
			"validate CRI v1 runtime API for endpoint \\\"npipe:////./pipe/containerd-containerd\\\": " +
			"rpc error: code = Unavailable desc = connection error\"")
	}
	var pods struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(trimBOM(raw), &pods); err != nil {
		return fail("the fake node's containers.json is not crictl pods -o json: " + err.Error())
	}
	var out strings.Builder
	for _, id := range ids {
		kept := pods.Items[:0:0]
		found := false
		for _, it := range pods.Items {
			var p struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(it, &p) == nil && p.ID == id {
				found = true
				continue
			}
			kept = append(kept, it)
		}
		if !found {
			fmt.Fprintf(&out, "skipped %s: no longer exists\r\n", id)
			continue
		}
		pods.Items = kept
		fmt.Fprintf(&out, "removed %s\r\n", id)
	}
	b, err := json.MarshalIndent(pods, "", "  ")
	if err != nil {
		return fail(err.Error())
	}
	endpoints, changed := withoutEndpointsOf(n, ids)
	n.mu.Lock()
	if n.written == nil {
		n.written = map[string][]byte{}
	}
	n.written["containers.json"] = b
	if changed {
		n.written["hns-endpoints.json"] = endpoints
	}
	n.applied = append(n.applied, c.Name)
	n.mu.Unlock()
	return scripts.Result{Name: c.Name, Stdout: []byte(out.String())}
}

// withoutEndpointsOf is hns-endpoints.json without the endpoints any of the sandboxes
// shared; changed is false when none did (or the file is absent).
func withoutEndpointsOf(n *Node, sandboxes []string) (out []byte, changed bool) {
	raw, ok := n.file("hns-endpoints.json")
	if !ok {
		return nil, false
	}
	var eps []json.RawMessage
	if json.Unmarshal(trimBOM(raw), &eps) != nil {
		return nil, false
	}
	kept := eps[:0:0]
	for _, e := range eps {
		var ep struct{ SharedContainers []string }
		_ = json.Unmarshal(e, &ep)
		gone := false
		for _, id := range sandboxes {
			gone = gone || slices.Contains(ep.SharedContainers, id)
		}
		if !gone {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(eps) {
		return nil, false
	}
	out, err := json.MarshalIndent(kept, "", "  ")
	return out, err == nil
}
