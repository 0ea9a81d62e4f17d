package fakenode

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
)

// A fix that restarts the kubelet or containerd, run in a HostProcess pod, is run under
// the kubelet's exec, which containerd serves: the restart ends that stream. The fake
// kubelet passes a restarter in the exec's context (kubelet_restart.go), and the node
// asks it to restart the service: at once, cutting the stream before the call's frame is
// written, when the call restarts in place; DelaySec after the call, when the call hands
// the restart to a process of its own (Restart-WtsServiceDetached), printing the line
// that helper prints. Either way the service comes back with another process ID in
// services.json, as a restarted Windows service does.

// restarter restarts a service of the node the exec runs on: now, or after the
// detached restart's delay; restarted runs once the service is back.
type restarter interface {
	restart(service string, detached bool, restarted func())
}

type restarterKey struct{}

func withRestarter(ctx context.Context, r restarter) context.Context {
	return context.WithValue(ctx, restarterKey{}, r)
}

func restarterOf(ctx context.Context) restarter {
	r, _ := ctx.Value(restarterKey{}).(restarter)
	return r
}

// restartsCuttingExec are the services call restarts whose restart cuts a HostProcess
// exec: fix-restart-service's kubelet and containerd, fix-sandbox-image's containerd.
func restartsCuttingExec(c scripts.Call) []string {
	switch c.Name {
	case "fix-sandbox-image":
		return []string{"containerd"}
	case "fix-restart-service":
		var out []string
		for _, n := range stringsParam(c.Params["Name"]) {
			if strings.EqualFold(n, "kubelet") || strings.EqualFold(n, "containerd") {
				out = append(out, strings.ToLower(n))
			}
		}
		return out
	}
	return nil
}

func stringsParam(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// restartCuttingExec follows a fix that ran (r, exit 0) and restarts the kubelet or
// containerd under a HostProcess exec: a call that hands the restart to a process of its
// own prints the helper's line and the restart comes after; one that restarts in place
// has its stream cut before the frame (finished false). Any other call is left as it is.
func (n *Node) restartCuttingExec(ctx context.Context, c scripts.Call, source string, r scripts.Result) (scripts.Result, bool) {
	rs := restarterOf(ctx)
	services := restartsCuttingExec(c)
	if rs == nil || len(services) == 0 || r.Exit != 0 {
		return r, true
	}
	detached := callsHelper(source, "Restart-WtsServiceDetached")
	for _, s := range services {
		svc := s
		if !detached {
			rs.restart(svc, false, func() { n.newServiceProcess(svc) })
			return scripts.Result{}, false
		}
		line := scripts.DetachedRestart{Service: svc, ProcessID: n.ServiceProcess(svc), Delay: scripts.DefaultRestartDelay}.Line()
		r.Stdout = append(append(r.Stdout, "\r\n"...), line+"\r\n"...)
		rs.restart(svc, true, func() { n.newServiceProcess(svc) })
	}
	return r, true
}

// callsHelper says whether a line of source that is not a comment names helper.
func callsHelper(source, helper string) bool {
	for _, l := range strings.Split(source, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") && strings.Contains(l, helper) {
			return true
		}
	}
	return false
}

// ServiceProcess is a service's ProcessId in the node's services.json (0: not there).
func (n *Node) ServiceProcess(service string) int64 {
	rows, _ := n.serviceRows()
	for _, row := range rows {
		if name, _ := row["Name"].(string); strings.EqualFold(name, service) {
			pid, _ := row["ProcessId"].(float64)
			return int64(pid)
		}
	}
	return 0
}

// newServiceProcess gives a restarted service a new process: its ProcessId in
// services.json moves on (Windows hands out new IDs, in steps of four).
func (n *Node) newServiceProcess(service string) {
	rows, ok := n.serviceRows()
	if !ok {
		return
	}
	for _, row := range rows {
		if name, _ := row["Name"].(string); strings.EqualFold(name, service) {
			pid, _ := row["ProcessId"].(float64)
			row["ProcessId"], row["State"] = pid+4, "Running"
		}
	}
	b, err := json.MarshalIndent(rows, "", "    ")
	if err != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.written == nil {
		n.written = map[string][]byte{}
	}
	n.written["services.json"] = b
}

func (n *Node) serviceRows() ([]map[string]any, bool) {
	b, ok := n.file("services.json")
	if !ok {
		return nil, false
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, false
	}
	return rows, true
}
