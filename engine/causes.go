package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Link sets each finding's CausedBy from the rule table (probes.CauseRules), over the
// whole run, so a cause on one node can explain an effect on another. It replaces any
// links already there, so judging again (after a fix) never keeps a stale cause. The
// slice is changed in place; the order of findings is not.
func Link(rules []probes.CauseRule, fs []probes.Finding) {
	for i := range fs {
		fs[i].CausedBy = nil
	}
	// Index by probe so the work is rules x matching pairs, not rules x findings².
	byProbe := map[string][]int{}
	for i, f := range fs {
		byProbe[f.Probe] = append(byProbe[f.Probe], i)
	}
	for _, r := range rules {
		for _, ci := range byProbe[r.Cause] {
			effects := byProbe[r.Effect]
			if r.Effect == probes.AnyProbe {
				effects = allIndexes(len(fs))
			}
			for _, ei := range effects {
				if r.Matches(fs[ci], fs[ei]) && !slices.Contains(fs[ei].CausedBy, fs[ci].Ref()) {
					fs[ei].CausedBy = append(fs[ei].CausedBy, fs[ci].Ref())
				}
			}
		}
	}
	for i := range fs {
		slices.SortFunc(fs[i].CausedBy, func(a, b probes.Ref) int {
			if c := strings.Compare(a.Node, b.Node); c != 0 {
				return c
			}
			return strings.Compare(a.Probe, b.Probe)
		})
	}
}

func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// CheckRules refuses a rule table whose probe-level links form a cycle (A causes B causes
// A would make neither a root cause) or that names a probe the registry does not know.
func CheckRules(reg *probes.Registry, rules []probes.CauseRule) error {
	known := map[string]bool{probes.ReachID: true, probes.AnyProbe: true}
	for _, id := range reg.IDs() {
		known[id] = true
	}
	next := map[string][]string{}
	for _, r := range rules {
		for _, id := range []string{r.Cause, r.Effect} {
			if !known[id] {
				return fmt.Errorf("cause rule %s -> %s: unknown probe %s", r.Cause, r.Effect, id)
			}
		}
		if r.Effect == probes.ReachID {
			return fmt.Errorf("cause rule %s -> %s: nothing explains an unreachable node", r.Cause, r.Effect)
		}
		if r.Effect == probes.AnyProbe {
			continue // REACH explains everything else; nothing explains REACH
		}
		next[r.Cause] = append(next[r.Cause], r.Effect)
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var visit func(id string, path []string) error
	visit = func(id string, path []string) error {
		switch state[id] {
		case onPath:
			return fmt.Errorf("cause rules form a cycle: %s", strings.Join(append(path, id), " -> "))
		case done:
			return nil
		}
		state[id] = onPath
		for _, n := range next[id] {
			if err := visit(n, append(path, id)); err != nil {
				return err
			}
		}
		state[id] = done
		return nil
	}
	ids := make([]string, 0, len(next))
	for id := range next {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := visit(id, nil); err != nil {
			return err
		}
	}
	return nil
}
