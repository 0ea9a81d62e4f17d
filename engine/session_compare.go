package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Compare sweeps nodes a and b of the session (those two only, as Probe sweeps every
// target) and lists the evidence that differs between them, ranked as Compare ranks it.
// Both must be targets of the session and both must answer: the evidence of a node that
// could not be reached is its sweep error, and a comparison against that says nothing.
func (s *Session) Compare(ctx context.Context, a, b string, emit func(Event)) ([]EvidenceDiff, error) {
	var targets []Target
	for _, name := range []string{a, b} {
		t, ok := s.Target(name)
		if !ok {
			var known []string
			for _, t := range s.Targets {
				known = append(known, t.Name)
			}
			return nil, fmt.Errorf("comparing %s with %s: no Windows node %s in %s (nodes: %s)", a, b, name, s.Source, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(targets, func(x Target) bool { return x.Name == name }) {
			targets = append(targets, t)
		}
	}
	var unreachable []string
	s.Engine.Probe(ctx, targets, func(ev Event) {
		// Probe calls this one event at a time.
		if ev.Kind == NodeCollected && ev.Err != nil {
			unreachable = append(unreachable, fmt.Sprintf("%s: %v", ev.Node, ev.Err))
		}
		if emit != nil {
			emit(ev)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", a, b, err)
	}
	if len(unreachable) > 0 {
		slices.Sort(unreachable)
		return nil, &UnreachableError{Nodes: unreachable}
	}
	ev := s.Engine.Tree.Evidence()
	return Compare(s.Engine.Registry, ev, a, ev, b), nil
}

// UnreachableError says which nodes of a comparison could not be swept, and why.
type UnreachableError struct {
	Nodes []string // "win-2: dial tcp ...: connection refused"
}

func (e *UnreachableError) Error() string {
	return "cannot compare: not reached: " + strings.Join(e.Nodes, "; ")
}
