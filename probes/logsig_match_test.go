package probes

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/scenarios"
)

// referenceScan is the table applied as it is written, line by line: the noise by
// Unicode lowering, then every regexp. The compiled table must agree with it exactly.
func referenceScan(text string) logScan {
	var out logScan
	for _, line := range strings.Split(text, "\n") {
		low := strings.ToLower(line)
		if slices.ContainsFunc(noise(), func(n string) bool { return strings.Contains(low, n) }) {
			out.ignored++
			continue
		}
		for i, s := range signatures() {
			if regexp.MustCompile(`(?i)` + s.re).MatchString(line) {
				out.hits = append(out.hits, lineHit{sig: i, text: strings.TrimSpace(line)})
			}
		}
	}
	return out
}

// TestCompiledSignaturesAgree: the literal prefilter never changes what the table finds,
// on every log and event file of every scenario, every recorded wording (alone, inside
// other lines, with CRLF line ends, shouted and whispered), and lines outside ASCII.
func TestCompiledSignaturesAgree(t *testing.T) {
	tab := compiledSignatures()
	var texts []string
	var wordings []string
	for _, ws := range signatureWordings() {
		for _, w := range ws {
			wordings = append(wordings, w.line)
		}
	}
	texts = append(texts, strings.Join(wordings, "\n"), strings.Join(wordings, "\r\n"),
		strings.ToUpper(strings.Join(wordings, "\n")), strings.ToLower(strings.Join(wordings, "\n")),
		"I1201 x\n"+strings.Join(wordings, " and then ")+"\n\n",
		// U+212A KELVIN SIGN folds to k under (?i); U+017F LONG S to s.
		strings.NewReplacer("k", "\u212a", "s", "\u017f").Replace(strings.Join(wordings, "\n")),
		"perfcounter_nodestats: "+wordings[0]+"\nünïcode "+wordings[1]+"\n/PROC/ "+wordings[2], "", "\n", "x")
	err := fs.WalkDir(scenarios.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".log") || strings.Contains(p, "event")) {
			return err
		}
		b, err := fs.ReadFile(scenarios.FS(), p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, text := range texts {
		got, want := tab.scan(text), referenceScan(text)
		if got.ignored != want.ignored || !slices.Equal(got.hits, want.hits) {
			t.Errorf("compiled scan differs on %.200q:\n got %d ignored, %v\nwant %d ignored, %v", text, got.ignored, got.hits, want.ignored, want.hits)
		}
		hits += len(want.hits)
	}
	if hits < len(wordings) {
		t.Errorf("only %d hits over %d texts: the texts do not exercise the table", hits, len(texts))
	}
}

// TestEverySignatureHasLiterals: a signature without a literal every match contains would
// put its regexp on every line of every log (the cost the prefilter removes).
func TestEverySignatureHasLiterals(t *testing.T) {
	tab := compiledSignatures()
	for i, s := range tab.sigs {
		if tab.lits[i] == nil {
			t.Errorf("%s: no literal is required by %q: rewrite it so each branch has one", s.id, s.re)
		}
	}
}
