package probes

import (
	"regexp"
	"slices"
	"testing"
)

// TestSignatureWordingsPerVersion: every wording of every version matches its signature and no
// other signature pointing at a different probe, survives the noise filter, and every
// wording names its source; every signature has at least one wording.
func TestSignatureWordingsPerVersion(t *testing.T) {
	words := signatureWordings()
	noisy := noise()
	for _, sig := range signatures() {
		ws := words[sig.id]
		if len(ws) == 0 {
			t.Errorf("%s: no wording in signatureWordings", sig.id)
		}
		re := regexp.MustCompile(`(?i)` + sig.re)
		for _, w := range ws {
			if !re.MatchString(w.line) {
				t.Errorf("%s misses the %s wording: %s", sig.id, w.version, w.line)
			}
			if w.source == "" || w.version == "" {
				t.Errorf("%s: a wording without its version or source: %q", sig.id, w.line)
			}
			if slices.ContainsFunc(noisy, func(n string) bool { return regexp.MustCompile(`(?i)` + regexp.QuoteMeta(n)).MatchString(w.line) }) {
				t.Errorf("%s: the %s wording would be dropped as noise", sig.id, w.version)
			}
			for _, other := range signatures() {
				if other.id != sig.id && other.probe != sig.probe && regexp.MustCompile(`(?i)`+other.re).MatchString(w.line) {
					t.Errorf("%s's %s wording also matches %s (probe %q, not %q)", sig.id, w.version, other.id, other.probe, sig.probe)
				}
			}
		}
	}
	for id := range words {
		if !slices.ContainsFunc(signatures(), func(s signature) bool { return s.id == id }) {
			t.Errorf("wordings for %s, which is no signature", id)
		}
	}
}
