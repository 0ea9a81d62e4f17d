package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collectors"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collectors/transport"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// KubeActions are the API calls Kubernetes-side fixes make.
type KubeActions interface {
	PatchPodCIDR(ctx context.Context, node, cidr string) error
	Cordon(ctx context.Context, node string) error
	Drain(ctx context.Context, node string) (evicted []string, err error)
	DeleteNode(ctx context.Context, node string) error
	Taint(ctx context.Context, node, key, value, effect string) error
}

// Fixer runs fixes: check the precondition still holds, run through the node's transport
// or the API, re-collect what the verifying probe reads, and judge again. Every attempt
// is audited, and a cooldown stops the same fix from looping on a node.
type Fixer struct {
	Engine  *Engine
	Targets map[string]Target
	Kube    KubeActions // nil: Kubernetes-side fixes are refused
	// Refresh re-collects cluster evidence into the engine's tree (nil: cluster evidence
	// is not refreshed, as when judging a bundle).
	Refresh  func(ctx context.Context) error
	Audit    *Audit
	User     string
	Cooldown time.Duration // 0 means 2 minutes
	Now      func() time.Time

	mu   sync.Mutex
	last map[string]time.Time
}

// Outcome is what a fix did.
type Outcome struct {
	Result  string         // verified, not-verified, failed
	Output  string         // what the fix printed
	After   probes.Finding // the verifying probe's new finding
	Evicted []string       // pods a drain evicted
}

// ErrRefused wraps every refusal (stale precondition, cooldown, manual or disruptive fix).
var ErrRefused = errors.New("fix refused")

// Declined records that a person said no at the confirmation.
func (x *Fixer) Declined(f probes.Finding, fix *probes.Fix) {
	x.audit(f, fix, "declined", "the confirmation was declined", "")
}

// Apply runs one fix of a finding. allowDisruptive must be true for disruptive fixes.
func (x *Fixer) Apply(ctx context.Context, f probes.Finding, fix *probes.Fix, allowDisruptive bool) (Outcome, error) {
	if err := x.admit(f, fix, allowDisruptive); err != nil {
		x.audit(f, fix, "refused", err.Error(), "")
		return Outcome{}, err
	}
	origin, ok1 := x.Engine.Registry.Get(f.Probe)
	probe, ok2 := x.Engine.Registry.Get(fix.Verify)
	if !ok1 || !ok2 {
		return Outcome{}, fmt.Errorf("%w: unknown probe %s or %s", ErrRefused, f.Probe, fix.Verify)
	}
	// The evidence may have changed since it was shown: judge again before touching anything.
	now, err := x.judge(ctx, f.Node, origin)
	if err != nil {
		x.audit(f, fix, "refused", err.Error(), "")
		return Outcome{}, fmt.Errorf("%w: re-checking before the fix: %v", ErrRefused, err)
	}
	if why := stale(now, fix); why != "" {
		x.audit(f, fix, "refused", why, "")
		return Outcome{After: now}, fmt.Errorf("%w: the precondition no longer holds: %s", ErrRefused, why)
	}
	x.mark(f.Node, fix.ID)
	out, evicted, runErr := x.run(ctx, f.Node, fix)
	if runErr != nil {
		x.audit(f, fix, "failed", runErr.Error(), out)
		return Outcome{Result: "failed", Output: out, After: now}, fmt.Errorf("running %s on %s: %w", fix.ID, f.Node, runErr)
	}
	after, err := x.judge(ctx, f.Node, probe)
	if err != nil {
		x.audit(f, fix, "not-verified", "re-collecting after the fix: "+err.Error(), out)
		return Outcome{Result: "not-verified", Output: out, Evicted: evicted}, fmt.Errorf("verifying %s: %w", fix.ID, err)
	}
	res := "not-verified"
	if verified(fix, after) {
		res = "verified"
	}
	x.audit(f, fix, res, after.Summary, out)
	return Outcome{Result: res, Output: out, After: after, Evicted: evicted}, nil
}

func (x *Fixer) admit(f probes.Finding, fix *probes.Fix, allowDisruptive bool) error {
	switch {
	case fix == nil:
		return fmt.Errorf("%w: %s on %s offers no fix", ErrRefused, f.Probe, f.Node)
	case fix.Kind == probes.Manual:
		return fmt.Errorf("%w: %q is a manual fix; the tool shows it but does not run it", ErrRefused, fix.Title)
	case len(fix.Choices) > 0:
		return fmt.Errorf("%w: %q has several choices; pick one", ErrRefused, fix.Title)
	case fix.Disruptive && !allowDisruptive:
		return fmt.Errorf("%w: %q is disruptive (%s); confirm it explicitly (--allow-disruptive)", ErrRefused, fix.Title, fix.Impact)
	case fix.Kind == probes.KubeAPI && x.Kube == nil:
		return fmt.Errorf("%w: %q needs the Kubernetes API and no cluster is connected", ErrRefused, fix.Title)
	}
	if _, ok := x.Targets[f.Node]; !ok && fix.Kind == probes.NodeScript {
		return fmt.Errorf("%w: no connection details for node %s", ErrRefused, f.Node)
	}
	cool := x.Cooldown
	if cool == 0 {
		cool = 2 * time.Minute
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.last[f.Node+"/"+fix.ID]; ok && x.now().Sub(t) < cool {
		return fmt.Errorf("%w: %s ran on %s %s ago; wait %s before trying again", ErrRefused, fix.ID, f.Node,
			x.now().Sub(t).Round(time.Second), cool)
	}
	return nil
}

func (x *Fixer) mark(node, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.last == nil {
		x.last = map[string]time.Time{}
	}
	x.last[node+"/"+id] = x.now()
}

func (x *Fixer) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

// stale says why a fix no longer applies: the finding passes now, or the fix it would
// offer differs (other parameters: the evidence changed).
func stale(now probes.Finding, fix *probes.Fix) string {
	if now.Status < probes.Warn {
		return fmt.Sprintf("%s passes now (%s)", now.Probe, now.Summary)
	}
	nf := now.Fix
	if nf != nil && len(nf.Choices) > 0 {
		for _, c := range nf.Choices {
			if c.ID == fix.ID {
				nf = c
			}
		}
	}
	if nf == nil || nf.ID != fix.ID || !reflect.DeepEqual(normParams(nf.Params), normParams(fix.Params)) {
		return fmt.Sprintf("the evidence changed: %s now says %q", now.Probe, now.Summary)
	}
	return ""
}

// verified says whether a finding shows the state the fix aims for.
func verified(fix *probes.Fix, f probes.Finding) bool {
	if fix.VerifyStatus == "" {
		return f.Status < probes.Warn
	}
	return f.Status.String() == fix.VerifyStatus
}

// normParams compares parameters the way they travel (JSON), so []string and []any agree.
func normParams(p map[string]any) string { return fmt.Sprintf("%v", p) }

// judge re-collects what one probe reads on a node and runs it.
func (x *Fixer) judge(ctx context.Context, node string, p probes.Probe) (probes.Finding, error) {
	var names []string
	cluster := false
	for _, n := range p.Needs() {
		if collectors.IsNodeFile(n) {
			names = append(names, n)
		} else {
			cluster = true
		}
	}
	if cluster && x.Refresh != nil {
		if err := x.Refresh(ctx); err != nil {
			return probes.Finding{}, fmt.Errorf("re-reading the cluster: %w", err)
		}
	}
	if t, ok := x.Targets[node]; ok {
		if len(names) > 0 {
			if err := x.Engine.Collect(ctx, t, names); err != nil {
				return probes.Finding{}, err
			}
		}
	}
	fs := probes.RunProbe(p, node, x.Engine.Tree.Evidence())
	if len(fs) == 0 {
		return probes.Finding{}, fmt.Errorf("probe %s returned nothing for %s", p.ID(), node)
	}
	return fs[0], nil
}

// run carries a fix out: a fix script through the node's transport, or an API call.
func (x *Fixer) run(ctx context.Context, node string, fix *probes.Fix) (string, []string, error) {
	switch fix.Kind {
	case probes.NodeScript:
		return x.runScript(ctx, x.Targets[node], fix)
	case probes.KubeAPI:
		return x.runKube(ctx, node, fix)
	}
	return "", nil, fmt.Errorf("fix kind %q cannot run", fix.Kind)
}

func (x *Fixer) runScript(ctx context.Context, t Target, fix *probes.Fix) (string, []string, error) {
	script, err := scripts.Sweep([]scripts.Call{{Name: fix.Action, Params: fix.Params}})
	if err != nil {
		return "", nil, err
	}
	tr, err := x.Engine.Dial(ctx, t.Transport)
	if err != nil {
		return "", nil, err
	}
	defer tr.Close()
	out, err := tr.Run(ctx, transport.Command{CommandLine: scripts.CommandLine(), Stdin: []byte(script)})
	if err != nil {
		return "", nil, err
	}
	results, _, err := scripts.Split(out.Stdout)
	if err != nil || len(results) != 1 {
		return string(out.Stdout), nil, fmt.Errorf("reading the fix's reply: %v %s", err, scripts.DecodeCLIXML(out.Stderr))
	}
	r := results[0]
	text := strings.TrimSpace(string(r.Stdout))
	if msg := strings.TrimSpace(scripts.DecodeCLIXML(r.Stderr)); msg != "" {
		text = strings.TrimSpace(text + "\n" + msg)
	}
	if r.Exit != 0 {
		return text, nil, fmt.Errorf("the fix script exited %d: %s", r.Exit, firstLine(text))
	}
	return text, nil, nil
}

func (x *Fixer) runKube(ctx context.Context, node string, fix *probes.Fix) (string, []string, error) {
	str := func(k string) string { s, _ := fix.Params[k].(string); return s }
	switch fix.Action {
	case "patch-podcidr":
		return "patched spec.podCIDR=" + str("podCIDR"), nil, x.Kube.PatchPodCIDR(ctx, node, str("podCIDR"))
	case "cordon":
		return "cordoned " + node, nil, x.Kube.Cordon(ctx, node)
	case "drain":
		ev, err := x.Kube.Drain(ctx, node)
		return fmt.Sprintf("drained %s: evicted %d pod(s)", node, len(ev)), ev, err
	case "delete-node":
		return "deleted node " + node, nil, x.Kube.DeleteNode(ctx, node)
	case "taint":
		return "tainted " + node, nil, x.Kube.Taint(ctx, node, str("key"), str("value"), str("effect"))
	}
	return "", nil, fmt.Errorf("unknown API action %q", fix.Action)
}

func (x *Fixer) audit(f probes.Finding, fix *probes.Fix, result, reason, output string) {
	e := AuditEntry{Time: x.now().UTC(), User: x.User, Node: f.Node, Probe: f.Probe, Result: result, Reason: reason, Output: output}
	if fix != nil {
		e.Fix, e.Commands = fix.ID, fix.Commands
	}
	_ = x.Audit.Append(e) // an unwritable audit log must not hide the fix's own result
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Preview is the text shown before a fix runs: what, where, the exact commands, what it
// disrupts, and how it will be verified. The TUI and the fix command both show it.
func Preview(f probes.Finding, fix *probes.Fix) string {
	return fmt.Sprintf("Fix: %s\nNode: %s    finding: %s %s (%s)\n", fix.Title, f.Node, f.Status.Glyph(), f.Probe, f.Summary) +
		PreviewBody(fix)
}

// PreviewBody is the preview without its title and node lines, for a screen that shows
// those in its own header.
func PreviewBody(fix *probes.Fix) string {
	var b strings.Builder
	switch fix.Kind {
	case probes.NodeScript:
		fmt.Fprintf(&b, "Runs on the node (fix script %s, parameters passed as data):\n", fix.Action)
	case probes.KubeAPI:
		fmt.Fprintf(&b, "Calls the Kubernetes API (%s), equivalent to:\n", fix.Action)
	default:
		b.WriteString("Manual: the tool shows these steps but does not run them:\n")
	}
	for _, c := range fix.Commands {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if fix.Disruptive {
		fmt.Fprintf(&b, "DISRUPTIVE: %s\n", fix.Impact)
	} else if fix.Impact != "" {
		fmt.Fprintf(&b, "Impact: %s\n", fix.Impact)
	}
	for _, n := range fix.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	want := "pass"
	if fix.VerifyStatus != "" {
		want = fix.VerifyStatus
	}
	fmt.Fprintf(&b, "Verify: re-collect and re-run %s (expect %s)\n", fix.Verify, want)
	return b.String()
}

// Runnable lists the fixes of a finding that can be chosen: the fix itself, or its
// choices.
func Runnable(f probes.Finding) []*probes.Fix {
	if f.Fix == nil {
		return nil
	}
	if len(f.Fix.Choices) > 0 {
		return f.Fix.Choices
	}
	return []*probes.Fix{f.Fix}
}
