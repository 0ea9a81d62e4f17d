package engine

import (
	"fmt"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Confirmation is the one rule for confirming a fix, applied by the TUI, by `fix` and again
// by Fixer.Apply: an ordinary fix takes a yes; a disruptive one takes the node's name typed
// back, in both front ends, because a reflexive "y" (or a --yes in a pasted command) must
// not take a node down.
type Confirmation struct {
	Disruptive bool
	Token      string // what a disruptive fix needs typed: the node's name
}

// ConfirmationFor is the confirmation a fix of a finding needs.
func ConfirmationFor(f probes.Finding, fix *probes.Fix) Confirmation {
	return Confirmation{Disruptive: fix != nil && fix.Disruptive, Token: f.Node}
}

// Question is the prompt the front ends show.
func (c Confirmation) Question() string {
	if c.Disruptive {
		return fmt.Sprintf("This fix is disruptive. Type the node name (%s) to run it: ", c.Token)
	}
	return "Run this fix? [y/N] "
}

// Accepts says whether an answer typed at the prompt confirms the fix.
func (c Confirmation) Accepts(typed string) bool {
	typed = strings.TrimSpace(typed)
	if c.Disruptive {
		return c.Token != "" && typed == c.Token
	}
	return strings.EqualFold(typed, "y") || strings.EqualFold(typed, "yes")
}

// Headless is how the confirmation is given without a terminal.
func (c Confirmation) Headless() string {
	if c.Disruptive {
		return "--yes --confirm " + c.Token
	}
	return "--yes"
}

// Answer is how a person answered the confirmation.
type Answer struct {
	Typed    string // what they typed at the prompt, or passed with --confirm
	Headless bool   // no prompt: Yes (--yes) stands for the person
	Yes      bool
}

// Typed is an answer typed at a prompt (TUI or terminal).
func Typed(s string) Answer { return Answer{Typed: s} }

// HeadlessAnswer is the answer of a run without a prompt: --yes, and --confirm's value.
func HeadlessAnswer(yes bool, confirm string) Answer {
	return Answer{Typed: confirm, Headless: true, Yes: yes}
}

// check decides an answer: 0 when it confirms, else Declined (a person said no at a
// prompt) or Refused (a headless run lacks what the rule needs), with why.
func (c Confirmation) check(a Answer) (Result, string) {
	switch {
	case !a.Headless && c.Accepts(a.Typed):
		return 0, ""
	case !a.Headless && c.Disruptive:
		return Declined, fmt.Sprintf("the confirmation was declined (typed %q, not the node name %s)", strings.TrimSpace(a.Typed), c.Token)
	case !a.Headless:
		return Declined, "the confirmation was declined"
	case !a.Yes:
		return Refused, "no terminal to confirm on: pass " + c.Headless()
	case c.Disruptive && strings.TrimSpace(a.Typed) != c.Token:
		if a.Typed == "" {
			return Refused, fmt.Sprintf("this fix is disruptive: --yes alone does not run it; add --confirm %s (the node name)", c.Token)
		}
		return Refused, fmt.Sprintf("this fix is disruptive: --confirm %q is not the node name %s", a.Typed, c.Token)
	}
	return 0, ""
}
