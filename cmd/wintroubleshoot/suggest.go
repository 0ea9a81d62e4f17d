package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// resolveProbe finds a probe by ID whatever its case (svc-kubelet is SVC-KUBELET); an
// unknown ID is a usage error that names the closest IDs.
func resolveProbe(reg *probes.Registry, id string) (string, error) {
	for _, known := range reg.IDs() {
		if strings.EqualFold(known, id) {
			return known, nil
		}
	}
	return "", usageErr("unknown probe %q%s (wintroubleshoot probes lists them)", id, didYouMean(id, reg.IDs()))
}

// didYouMean is ", did you mean A or B?" for the candidates closest to word: the fewest
// edits, within a third of its length (case ignored); failing that, up to three that
// start with it. Else "".
func didYouMean(word string, candidates []string) string {
	w := strings.ToLower(word)
	var best, prefixed []string
	bestD := max(2, len(w)/3) + 1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if len(w) >= 3 && strings.HasPrefix(lc, w) && !slices.Contains(prefixed, c) {
			prefixed = append(prefixed, c)
		}
		switch d := editDistance(w, lc); {
		case d < bestD:
			best, bestD = []string{c}, d
		case d == bestD && !slices.Contains(best, c):
			best = append(best, c)
		}
	}
	if len(best) == 0 || len(best) > 3 {
		best = prefixed
	}
	if len(best) == 0 || len(best) > 3 {
		return ""
	}
	return ", did you mean " + strings.Join(best, " or ") + "?"
}

// editDistance is the Levenshtein distance of a and b, by bytes (IDs, node names and
// flags are ASCII), in one row of memory.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, prev+cost)
			prev = cur
		}
	}
	return row[len(b)]
}

// flagSuggestion is cobra's "unknown flag: --nod" with the flags of the command that
// was meant: cobra suggests subcommands, not flags.
func flagSuggestion(root *cobra.Command, args []string, msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return ""
	}
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		cmd = root
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return didYouMean("--"+name, names)
}
