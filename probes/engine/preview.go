package engine

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Preview is the text shown before a fix runs: what, where, the exact commands, what it
// disrupts, and how it will be verified. The TUI and the fix command both show it.
func Preview(f probes.Finding, fix *probes.Fix) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fix: %s\n", fix.Title)
	fmt.Fprintf(&b, "Node: %s    finding: %s %s (%s)\n", f.Node, f.Status.Glyph(), f.Probe, f.Summary)
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
