package redact

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/secrets"
)

// TestCorpusGitleaksSamples plants every gitleaks true positive into every evidence
// format, redacts it as intake does, and requires that no secret gitleaks finds in the
// sample comes out and the format's structure survives.
func TestCorpusGitleaksSamples(t *testing.T) {
	corpus, stats, err := secrets.GitleaksCorpus()
	if err != nil {
		t.Fatal(err)
	}
	corpus = append(corpus, secrets.OwnKinds()...)
	r := Default()
	leaks, broken := map[string][]string{}, map[string][]string{}
	unplantable := map[string]int{}
	places := secrets.Formats()
	for _, c := range corpus {
		for _, p := range places {
			in := p.Plant(c.Line)
			if p.Check != nil && p.Check(in) != nil {
				unplantable[p.Name]++ // the sample cannot be written in this format (a tab in YAML)
				continue
			}
			out := r.Bytes(p.File, in)
			text := string(out)
			if p.Decode != nil {
				text = p.Decode(out)
			}
			for _, s := range c.Secrets {
				if strings.Contains(text, s) || strings.Contains(text, strings.Trim(secrets.JSONString(s), `"`)) {
					leaks[p.Name] = append(leaks[p.Name], fmt.Sprintf("%s: %q", c.Rule, s))
					break
				}
			}
			if p.Check != nil {
				if err := p.Check(out); err != nil {
					broken[p.Name] = append(broken[p.Name], fmt.Sprintf("%s: %v", c.Rule, err))
				}
			}
		}
	}
	stats["placements"] = len(corpus) * len(places)
	t.Logf("gitleaks corpus: %v, formats %d, not plantable %v", stats, len(places), unplantable)
	report := func(what string, m map[string][]string) {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := m[k]
			t.Errorf("%s in %s: %d, e.g. %s", what, k, len(v), strings.Join(v[:min(len(v), 5)], "; "))
		}
	}
	report("leaks", leaks)
	report("structure broken", broken)
}
