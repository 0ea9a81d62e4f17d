package engine

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Result is how one fix attempt ended. The engine decides it once; the TUI, `fix` and the
// audit log all show the same word, so a front end never re-derives success from a status
// (a drain is verified by the node showing as cordoned, a warn).
type Result int

const (
	// Verified: the fix ran and the verifying probe shows the state the fix aims for.
	Verified Result = iota + 1
	// NotVerified: the fix ran, but the verifying probe does not show that state (or could
	// not be re-collected).
	NotVerified
	// Failed: the fix ran and reported an error; the node may be part way.
	Failed
	// Refused: the engine did not run it (stale precondition, cooldown, manual fix, no
	// confirmation possible, a drain that would lose pods).
	Refused
	// Declined: a person saw the preview and said no.
	Declined
)

func resultNames() []string {
	return []string{"", "verified", "not-verified", "failed", "refused", "declined"}
}

func (r Result) String() string {
	if r < Verified || r > Declined {
		return fmt.Sprintf("result(%d)", int(r))
	}
	return resultNames()[r]
}

// MarshalText writes the result as its name (audit log, JSON).
func (r Result) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a result name.
func (r *Result) UnmarshalText(b []byte) error {
	for i, n := range resultNames() {
		if i > 0 && n == string(b) {
			*r = Result(i)
			return nil
		}
	}
	return fmt.Errorf("unknown fix result %q (want one of %s)", b, strings.Join(resultNames()[1:], ", "))
}

// Outcome is what a fix attempt did. Result is the decision; the rest explains it.
type Outcome struct {
	Result  Result
	Reason  string         // why: the refusal, the error, or the verifying finding's summary
	Output  string         // what the fix printed
	After   probes.Finding // the verifying probe's new finding (zero when it did not run)
	Want    string         // the status that verifies the fix ("pass", or the fix's VerifyStatus)
	Evicted []string       // pods a drain evicted
	Pending []string       // pods a drain evicted that were still terminating when it stopped waiting
	// Cleared are the consequences of the fixed finding (on its node) that were judged
	// again after a verified fix and now pass: what fixing the root cause also fixed.
	Cleared []probes.Ref
}

// OK says the fix is verified.
func (o Outcome) OK() bool { return o.Result == Verified }

// Line is the one-line result both front ends print.
func (o Outcome) Line() string {
	switch o.Result {
	case Verified, NotVerified:
		if o.After.Probe == "" {
			return fmt.Sprintf("%s: %s", o.Result, o.Reason)
		}
		s := fmt.Sprintf("%s: %s %s %s", o.Result, o.After.Status.Glyph(), o.After.Probe, oneLineOf(o.After.Summary))
		if o.Result == NotVerified {
			s += fmt.Sprintf(" (want %s, got %s)", o.Want, o.After.Status)
		}
		return s + clearedPhrase(o.Cleared)
	}
	return fmt.Sprintf("%s: %s", o.Result, firstLine(o.Reason))
}

// verifyWant is the status that shows a fix worked.
func verifyWant(fix *probes.Fix) string { return fix.VerifyStatus.String() }

// verified says whether a finding shows the state the fix aims for.
func verified(fix *probes.Fix, f probes.Finding) bool { return fix.VerifyStatus.Met(f.Status) }

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }
