package main

import (
	"fmt"
	"io"

	"github.com/wintroubleshoot/wintroubleshoot/engine"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
	"github.com/wintroubleshoot/wintroubleshoot/report"
)

// printRootCauseChanges is the head of `diff`: the root causes that appeared or cleared
// between the bundles, before the finding-by-finding lines, since those are what to act
// on. Both runs are linked again here, so a bundle written before findings carried their
// causes (schemaVersion 1) compares the same way.
func printRootCauseChanges(w io.Writer, before, after []probes.Finding) {
	engine.Link(probes.CauseRules(), before)
	engine.Link(probes.CauseRules(), after)
	appeared, cleared := report.RootCauseChanges(before, after)
	if len(appeared)+len(cleared) == 0 {
		return
	}
	fmt.Fprintf(w, "root causes: %d appeared, %d cleared\n", len(appeared), len(cleared))
	for _, r := range appeared {
		fmt.Fprintf(w, "  + %s %s: %s\n", r.Status.Glyph(), r.Ref, r.Summary)
	}
	for _, r := range cleared {
		fmt.Fprintf(w, "  - %s %s: %s\n", r.Status.Glyph(), r.Ref, r.Summary)
	}
}
