package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/evidence"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// KubeActions are the API calls Kubernetes-side fixes make (*kube.Client in a live run).
type KubeActions interface {
	PatchPodCIDR(ctx context.Context, node, cidr string) error
	Cordon(ctx context.Context, node string) error
	// PlanDrain lists what Drain would do, changing nothing; the preview shows it.
	PlanDrain(ctx context.Context, node string, o kube.DrainOptions) (kube.DrainPlan, error)
	Drain(ctx context.Context, node string, o kube.DrainOptions) (kube.DrainResult, error)
	DeleteNode(ctx context.Context, node string) error
	Taint(ctx context.Context, node, key, value, effect string) error
}

// Fixer runs fixes: check the confirmation and that the precondition still holds, run
// through the node's transport or the API, re-collect what the verifying probe reads, and
// judge again. Every attempt is audited with the Result it ended with, and a cooldown
// stops the same fix from looping on a node.
type Fixer struct {
	Engine  *Engine
	Targets map[string]Target
	Kube    KubeActions // nil: Kubernetes-side fixes are refused
	// Refresh re-collects cluster evidence into the engine's tree (nil: cluster evidence
	// is not refreshed, as when judging a bundle).
	Refresh func(ctx context.Context) error
	// Drain is how drains run: kubectl drain's --force and --delete-emptydir-data, the
	// grace period and the wait (a zero Timeout means 2 minutes, so a node whose kubelet
	// is down cannot hold a drain forever).
	Drain    kube.DrainOptions
	Audit    *Audit
	User     string
	Cooldown time.Duration // 0 means 2 minutes
	Now      func() time.Time

	mu   sync.Mutex
	last map[string]time.Time
}

// ErrRefused wraps every refusal (stale precondition, cooldown, manual or unconfirmed fix,
// a drain kubectl would refuse).
var ErrRefused = errors.New("fix refused")

// ErrDeclined is returned when the answer typed at a prompt does not confirm the fix.
var ErrDeclined = errors.New("fix declined")

// Declined records that a person said no at the confirmation.
func (x *Fixer) Declined(f probes.Finding, fix *probes.Fix) {
	_ = x.audit(f, fix, Outcome{Result: Declined, Reason: "the confirmation was declined"}) // nothing ran
}

// Apply runs one fix of a finding once the answer satisfies its Confirmation, and says
// how it ended. The Outcome's Result is the decision front ends show; the error, set for
// every result but Verified and a judged NotVerified, explains it.
func (x *Fixer) Apply(ctx context.Context, f probes.Finding, fix *probes.Fix, ans Answer) (Outcome, error) {
	o, err := x.apply(ctx, f, fix, ans)
	if o.Reason == "" && err != nil {
		o.Reason = err.Error()
	}
	if aerr := x.audit(f, fix, o); aerr != nil {
		// The fix's own result stands, but a change to a node left unrecorded is an
		// error the front end reports (and the command exits non-zero on).
		err = errors.Join(err, fmt.Errorf("%s on %s ended %s, but its audit record was not written: %w", fixID(fix), f.Node, o.Result, aerr))
	}
	return o, err
}

func fixID(fix *probes.Fix) string {
	if fix == nil {
		return "the fix"
	}
	return fix.ID
}

func (x *Fixer) apply(ctx context.Context, f probes.Finding, fix *probes.Fix, ans Answer) (Outcome, error) {
	refuse := func(after probes.Finding, format string, a ...any) (Outcome, error) {
		why := fmt.Sprintf(format, a...)
		return Outcome{Result: Refused, Reason: why, After: after}, fmt.Errorf("%w: %s", ErrRefused, why)
	}
	if err := x.admit(f, fix); err != nil {
		return refuse(probes.Finding{}, "%s", err)
	}
	// Before the confirmation, so nobody confirms a fix that will not run.
	if err := x.Audit.Check(); err != nil {
		return refuse(probes.Finding{}, "%s", err)
	}
	if r, why := ConfirmationFor(f, fix).check(ans); r == Declined {
		return Outcome{Result: Declined, Reason: why}, fmt.Errorf("%w: %s", ErrDeclined, why)
	} else if r == Refused {
		return refuse(probes.Finding{}, "%s", why)
	}
	origin, ok1 := x.Engine.Registry.Get(f.Probe)
	probe, ok2 := x.Engine.Registry.Get(fix.Verify)
	if !ok1 || !ok2 {
		return refuse(probes.Finding{}, "unknown probe %s or %s", f.Probe, fix.Verify)
	}
	// The evidence may have changed since it was shown: judge again before touching anything.
	now, err := x.judge(ctx, f.Node, origin)
	if err != nil {
		return refuse(probes.Finding{}, "re-checking before the fix: %v", err)
	}
	if why := stale(now, fix); why != "" {
		return refuse(now, "the precondition no longer holds: %s", why)
	}
	if fix.Kind == probes.KubeAPI && fix.Action == probes.Drain {
		plan, err := x.Kube.PlanDrain(ctx, f.Node, x.drainOptions())
		if err != nil {
			return refuse(now, "listing the pods to drain: %v", err)
		}
		if len(plan.Blocked) > 0 {
			return refuse(now, "kubectl drain refuses: %s; nothing was changed (`wintroubleshoot fix` chooses --force or --delete-emptydir-data)",
				strings.Join(plan.Blocked, "; "))
		}
	}
	// Again, right before the change: the confirmation may have waited a long while.
	if err := x.Audit.Check(); err != nil {
		return refuse(now, "%s", err)
	}
	x.mark(f.Node, fix.ID)
	expect := x.consequences(now) // what fixing this root cause should also clear
	want := verifyWant(fix)
	r, runErr := x.run(ctx, f.Node, fix)
	if errors.Is(runErr, kube.ErrDrainBlocked) && len(r.evicted) == 0 {
		return refuse(now, "%v", runErr) // pods changed between the plan and the drain
	}
	if runErr != nil {
		return Outcome{Result: Failed, Output: r.out, After: now, Want: want, Evicted: r.evicted, Pending: r.pending},
			fmt.Errorf("running %s on %s: %w", fix.ID, f.Node, runErr)
	}
	o := Outcome{Result: NotVerified, Output: r.out, Want: want, Evicted: r.evicted, Pending: r.pending}
	if err := x.awaitFix(ctx, f.Node, r.out); err != nil {
		o.After, o.Reason = now, err.Error()
		return o, fmt.Errorf("verifying %s: %w", fix.ID, err)
	}
	after, err := x.judge(ctx, f.Node, probe)
	if err != nil {
		o.Reason = "re-collecting after the fix: " + err.Error()
		return o, fmt.Errorf("verifying %s: %w", fix.ID, err)
	}
	o.After, o.Reason = after, after.Summary
	if verified(fix, after) {
		o.Result = Verified
		o.Cleared = x.reverifyClears(ctx, f.Node, expect)
	}
	return o, nil
}

// drainOptions are the Fixer's drain options with the default wait.
func (x *Fixer) drainOptions() kube.DrainOptions {
	o := x.Drain
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	return o
}

// admit refuses what can never run here, before anything is asked or re-collected.
func (x *Fixer) admit(f probes.Finding, fix *probes.Fix) error {
	switch {
	case fix == nil:
		return fmt.Errorf("%s on %s offers no fix", f.Probe, f.Node)
	case fix.Kind == probes.Manual:
		return fmt.Errorf("%q is a manual fix; the tool shows it but does not run it", fix.Title)
	case len(fix.Choices) > 0:
		return fmt.Errorf("%q has several choices; pick one", fix.Title)
	case fix.Kind == probes.KubeAPI && x.Kube == nil:
		return fmt.Errorf("%q needs the Kubernetes API and no cluster is connected", fix.Title)
	}
	if _, ok := x.Targets[f.Node]; !ok && fix.Kind == probes.NodeScript {
		return fmt.Errorf("no connection details for node %s", f.Node)
	}
	cool := x.Cooldown
	if cool == 0 {
		cool = 2 * time.Minute
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.last[f.Node+"/"+fix.ID]; ok && x.now().Sub(t) < cool {
		return fmt.Errorf("%s ran on %s %s ago; wait %s before trying again", fix.ID, f.Node,
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

// normParams compares parameters the way they travel (JSON), so []string and []any agree.
func normParams(p map[string]any) string { return fmt.Sprintf("%v", p) }

// judge re-collects what one probe reads on a node and runs it.
func (x *Fixer) judge(ctx context.Context, node string, p probes.Probe) (probes.Finding, error) {
	var names []string
	cluster := false
	for _, n := range p.Needs() {
		if evidence.IsNodeFile(n) {
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

// audit records one attempt; an error says the record was not written.
func (x *Fixer) audit(f probes.Finding, fix *probes.Fix, o Outcome) error {
	e := AuditEntry{Time: x.now().UTC(), User: x.User, Node: f.Node, Probe: f.Probe, Result: o.Result, Reason: o.Reason, Output: o.Output}
	if fix != nil {
		e.Fix, e.Commands = fix.ID, x.commands(f.Node, fix)
	}
	return x.Audit.Append(e)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
