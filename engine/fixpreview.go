package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/collect/kube"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Preview is the text shown before a fix runs: what, where, the exact commands, what it
// disrupts, and how it will be verified. The TUI and the fix command both show it.
func (x *Fixer) Preview(ctx context.Context, f probes.Finding, fix *probes.Fix) string {
	return fmt.Sprintf("Fix: %s\nNode: %s    finding: %s %s (%s)\n", fix.Title, f.Node, f.Status.Glyph(), f.Probe, f.Summary) +
		x.PreviewBody(ctx, f.Node, fix)
}

// PreviewBody is the preview without its title and node lines, for a screen that shows
// those in its own header. For a drain it asks the API which pods the drain would evict,
// leave and refuse, with kubectl drain's own filters, so the preview is what runs.
func (x *Fixer) PreviewBody(ctx context.Context, node string, fix *probes.Fix) string {
	var b strings.Builder
	switch fix.Kind {
	case probes.NodeScript:
		fmt.Fprintf(&b, "Runs on the node (fix script %s, parameters passed as data):\n", fix.Action)
	case probes.KubeAPI:
		fmt.Fprintf(&b, "Calls the Kubernetes API (%s), equivalent to:\n", fix.Action)
	default:
		b.WriteString("Manual: the tool shows these steps but does not run them:\n")
	}
	for _, c := range x.commands(node, fix) {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if fix.Kind == probes.KubeAPI && fix.Action == probes.Drain {
		x.previewDrain(ctx, &b, node)
	}
	if fix.Disruptive {
		fmt.Fprintf(&b, "DISRUPTIVE: %s\n", fix.Impact)
	} else if fix.Impact != "" {
		fmt.Fprintf(&b, "Impact: %s\n", fix.Impact)
	}
	for _, n := range fix.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	fmt.Fprintf(&b, "Verify: re-collect and re-run %s (expect %s)\n", fix.Verify, verifyWant(fix))
	return b.String()
}

func (x *Fixer) previewDrain(ctx context.Context, b *strings.Builder, node string) {
	if x.Kube == nil {
		b.WriteString("No cluster is connected: the drain cannot run here.\n")
		return
	}
	plan, err := x.Kube.PlanDrain(ctx, node, x.drainOptions())
	if err != nil {
		fmt.Fprintf(b, "Could not list the pods to drain: %v\n", err)
		return
	}
	evict := "no pods"
	if len(plan.Evict) > 0 {
		evict = strings.Join(plan.Evict, ", ")
	}
	fmt.Fprintf(b, "Evicts now (PodDisruptionBudgets hold): %s\n", evict)
	for _, n := range plan.Notes {
		fmt.Fprintf(b, "  kubectl: %s\n", n)
	}
	for _, r := range plan.Blocked {
		fmt.Fprintf(b, "REFUSES: %s\n", r)
	}
	if len(plan.Blocked) > 0 {
		b.WriteString("As it stands the drain is refused and nothing changes; `wintroubleshoot fix` with the flag named above allows it.\n")
	}
}

// drainReport is what a drain printed, for the fix output and the audit log.
func drainReport(node string, res kube.DrainResult) string {
	lines := []string{"cordoned " + node}
	if len(res.Evicted) == 0 {
		lines = append(lines, "evicted no pods")
	} else {
		lines = append(lines, fmt.Sprintf("evicted %d pod(s): %s", len(res.Evicted), strings.Join(res.Evicted, ", ")))
	}
	for _, n := range res.Plan.Notes {
		lines = append(lines, "kubectl: "+n)
	}
	if len(res.Pending) > 0 {
		lines = append(lines, "still terminating when the wait ended (a stopped kubelet cannot finish them): "+strings.Join(res.Pending, ", "))
	}
	return strings.Join(lines, "\n")
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
