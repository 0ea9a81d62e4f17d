package report

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// TestDeterministic: the same findings give byte-identical reports in every format,
// rendered twice and from any input order (the engine's fan-out returns nodes in the
// order they finish).
func TestDeterministic(t *testing.T) {
	for _, f := range Formats() {
		opt := Options{Excerpts: sampleExcerpts()}
		want := render(t, f, sampleMeta, sampleFindings(), opt)
		if again := render(t, f, sampleMeta, sampleFindings(), opt); again != want {
			t.Errorf("%s: two renderings differ", f)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 20 {
			fs := sampleFindings()
			rng.Shuffle(len(fs), func(a, b int) { fs[a], fs[b] = fs[b], fs[a] })
			if got := render(t, f, sampleMeta, fs, opt); got != want {
				t.Errorf("%s: shuffle %d renders differently", f, i)
				break
			}
		}
		// The trimmed Markdown too: trimming decides by size, never by order.
		opt.MaxSize = 1500
		want = render(t, f, sampleMeta, sampleFindings(), opt)
		fs := slices.Clone(sampleFindings())
		slices.Reverse(fs)
		if got := render(t, f, sampleMeta, fs, opt); got != want {
			t.Errorf("%s with --max-size: reversed input renders differently", f)
		}
	}
}

// TestMarkdownMaxSize: a limit trims the least important part first and says so; the
// failing findings keep their evidence and fixes even when nothing else would fit.
func TestMarkdownMaxSize(t *testing.T) {
	opt := Options{Excerpts: sampleExcerpts()}
	full := render(t, Markdown, sampleMeta, sampleFindings(), opt)
	opt.MaxSize = utf8.RuneCountInString(full) - 1 // characters, not bytes
	one := render(t, Markdown, sampleMeta, sampleFindings(), opt)
	if utf8.RuneCountInString(one) > opt.MaxSize || !strings.Contains(one, "_Trimmed to fit") ||
		!strings.Contains(one, "the list of passing and skipped checks left out") || strings.Contains(one, "warnings") {
		t.Errorf("one byte over: want only the passing list trimmed, got %d bytes:\n%s", len(one), one)
	}
	opt.MaxSize = 1
	tiny := render(t, Markdown, sampleMeta, sampleFindings(), opt)
	if !strings.Contains(tiny, "over the 1 asked for") {
		t.Errorf("an impossible limit is not reported:\n%s", tiny)
	}
	for _, f := range sampleFindings() {
		if f.Status < probes.Fail {
			continue
		}
		for _, e := range f.Evidence {
			if !strings.Contains(tiny, e) {
				t.Errorf("%s: evidence %s trimmed", f.Probe, e)
			}
		}
		if f.Fix != nil && !strings.Contains(tiny, mdInline(f.Fix.Title)) {
			t.Errorf("%s: fix trimmed", f.Probe)
		}
	}
}
