package engine

import (
	"context"
	"fmt"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// ran is what carrying a fix out printed, and for a drain which pods it moved.
type ran struct {
	out              string
	evicted, pending []string
}

// run carries a fix out: a fix script through the node's transport, or an API call.
func (x *Fixer) run(ctx context.Context, node string, fix *probes.Fix) (ran, error) {
	switch fix.Kind {
	case probes.NodeScript:
		out, err := x.runScript(ctx, x.Targets[node], fix)
		return ran{out: out}, err
	case probes.KubeAPI:
		return x.runKube(ctx, node, fix)
	}
	return ran{}, fmt.Errorf("fix kind %q cannot run", fix.Kind)
}

func (x *Fixer) runScript(ctx context.Context, t Target, fix *probes.Fix) (string, error) {
	// A Linux node gets its fix as sh, never PowerShell: the same framing either way.
	call := scripts.Call{Name: string(fix.Action), Params: fix.Params}
	var script, commandLine string
	var err error
	if x.Engine.osOf(t) == evidence.Linux {
		script, err = scripts.LinuxFix(call)
		commandLine = scripts.LinuxCommandLine(t.Transport.User)
	} else {
		script, err = scripts.Sweep([]scripts.Call{call})
		commandLine = scripts.CommandLine()
	}
	if err != nil {
		return "", err
	}
	tr, err := x.Engine.Dial(ctx, t.Transport)
	if err != nil {
		return "", err
	}
	defer tr.Close()
	out, err := tr.Run(ctx, transport.Command{CommandLine: commandLine, Stdin: []byte(script)})
	if err != nil {
		return "", err
	}
	results, _, err := scripts.Split(out.Stdout)
	if err != nil || len(results) != 1 {
		return string(out.Stdout), fmt.Errorf("reading the fix's reply: %v %s", err, scripts.DecodeCLIXML(out.Stderr))
	}
	r := results[0]
	text := strings.TrimSpace(string(r.Stdout))
	if msg := strings.TrimSpace(scripts.DecodeCLIXML(r.Stderr)); msg != "" {
		text = strings.TrimSpace(text + "\n" + msg)
	}
	if r.Exit != 0 {
		return text, fmt.Errorf("the fix script exited %d: %s", r.Exit, firstLine(text))
	}
	return text, nil
}

func (x *Fixer) runKube(ctx context.Context, node string, fix *probes.Fix) (ran, error) {
	str := func(k string) string { s, _ := fix.Params[k].(string); return s }
	switch fix.Action {
	case probes.PatchPodCIDR:
		return ran{out: "patched spec.podCIDR=" + str("podCIDR")}, x.Kube.PatchPodCIDR(ctx, node, str("podCIDR"))
	case probes.Cordon:
		return ran{out: "cordoned " + node}, x.Kube.Cordon(ctx, node)
	case probes.Drain:
		res, err := x.Kube.Drain(ctx, node, x.drainOptions())
		return ran{out: drainReport(node, res), evicted: res.Evicted, pending: res.Pending}, err
	case probes.DeleteNode:
		return ran{out: "deleted node " + node}, x.Kube.DeleteNode(ctx, node)
	case probes.Taint:
		return ran{out: "tainted " + node}, x.Kube.Taint(ctx, node, str("key"), str("value"), str("effect"))
	}
	return ran{}, fmt.Errorf("unknown API action %q", fix.Action)
}

// commands are what a fix runs, as the preview and the audit log show them. A drain's
// are built from the options it really runs with, not from the probe's text.
func (x *Fixer) commands(node string, fix *probes.Fix) []string {
	if fix.Kind == probes.KubeAPI && fix.Action == probes.Drain {
		return x.drainOptions().Commands(node)
	}
	return fix.Commands
}
