package probes_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestLogSignaturesAreCited: a line LOG-SIGNATURES says its supported probe cites is in
// that probe's finding whenever the probe does not pass, so no log line is left as a
// loose error and none is claimed by a finding that does not show it.
func TestLogSignaturesAreCited(t *testing.T) {
	claim := regexp.MustCompile(`^([A-Z-]+): (\S+) in (\S+): .* \(cited by ([A-Z-]+) when it fails\)$`)
	checked := 0
	for _, name := range scenarios.Names() {
		got, _ := judged(t, name)
		for key, f := range got {
			if f.Probe != "LOG-SIGNATURES" {
				continue
			}
			for _, d := range f.Details {
				m := claim.FindStringSubmatch(d)
				if m == nil {
					continue
				}
				checked++
				sup, ok := got[f.Node+"/"+m[4]]
				if !ok {
					t.Errorf("%s %s: claims %s cites it, which did not judge the node", name, key, m[4])
					continue
				}
				if sup.Status == probes.Pass {
					continue
				}
				if !slices.Contains(sup.Evidence, m[3]) || !slices.ContainsFunc(sup.Details, func(s string) bool {
					return regexp.MustCompile(`^log signature ` + regexp.QuoteMeta(m[2]) + ` in `).MatchString(s)
				}) {
					t.Errorf("%s: %s is %s but does not cite %s line in %s:\n%v", name, m[4], sup.Status, m[2], m[3], sup.Details)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no scenario has a cited signature: the test checks nothing")
	}
}
