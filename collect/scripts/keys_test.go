package scripts

import (
	"regexp"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// TestKeysAreTheSnippets: every node key names an embedded snippet, every snippet has a
// key, and a snippet takes every parameter its key says the sweep passes it. The keys
// name snippets as strings so that probes, which read keys, embed no script.
func TestKeysAreTheSnippets(t *testing.T) {
	snippets := Snippets()
	var keyed []string
	for _, k := range evidence.All() {
		m := k.Meta()
		// Linux keys are printed by the shell sweep of a Linux worker, not by PowerShell
		// snippets (the Linux evidence contract, evidence/keys_linuxnode.go).
		if m.Scope != evidence.Node || m.NodeOS() != evidence.Windows {
			continue
		}
		keyed = append(keyed, m.Snippet)
		body, err := Body(m.Snippet)
		if err != nil {
			t.Errorf("key %s: no snippet %s: %v", m.Name, m.Snippet, err)
			continue
		}
		for _, p := range m.Params {
			if !regexp.MustCompile(`(?i)param\([^)]*\$` + p + `\b`).MatchString(body) {
				t.Errorf("key %s declares sweep parameter %s, which snippet %s does not take", m.Name, p, m.Snippet)
			}
		}
	}
	for _, s := range snippets {
		if !slices.Contains(keyed, s) {
			t.Errorf("snippet %s has no evidence key (evidence)", s)
		}
	}
}
