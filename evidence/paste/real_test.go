package paste

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/fixtures/golden"
)

// realOutputs finds the shared folder of real pastes (reference material kept outside
// the repository); tests that need it skip without it.
func realOutputs(t *testing.T) string {
	t.Helper()
	for _, d := range []string{os.Getenv("WTS_REAL_OUTPUTS"), "../../../shared/real-outputs", "../../../../shared/real-outputs"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "INDEX.md")); err == nil {
			return d
		}
	}
	t.Skip("no real-outputs folder (set WTS_REAL_OUTPUTS)")
	return ""
}

// realLists are the real samples that hold a list view.
func realLists(t *testing.T) map[string][]Line {
	p := New()
	dir := realOutputs(t)
	names, err := filepath.Glob(filepath.Join(dir, "*_list_*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(dir, "service-newservice-list*.txt"))
	names = append(names, more...)
	if len(names) < 9 {
		t.Fatalf("found %d list-view samples in %s, expected at least 9", len(names), dir)
	}
	out := map[string][]Line{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = p.Lines(string(b))
	}
	return out
}

func plain(recs []Record) []map[string]any {
	out := make([]map[string]any, len(recs))
	for i, r := range recs {
		out[i] = r.Plain()
	}
	return out
}

func assertGolden(t *testing.T, name string, got any) {
	t.Helper()
	golden.AssertJSON(t, filepath.Join("testdata", "golden", name+".json"), got)
}

// TestRealListViews parses every real list-view paste to its golden, and checks that
// nothing but the text around the output is left over.
func TestRealListViews(t *testing.T) {
	p := New()
	for name, lines := range realLists(t) {
		t.Run(name, func(t *testing.T) {
			lv := p.ParseList(lines)
			if len(lv.Records) == 0 {
				t.Fatal("no records")
			}
			for _, l := range lv.Leftover {
				if p.propLine.MatchString(l.Text) {
					t.Errorf("line %d looks like a property but was left over: %q", l.No, l.Text)
				}
			}
			assertGolden(t, strings.TrimSuffix(name, ".txt"), plain(lv.Records))
		})
	}
}

// TestWrappedListViews re-renders each real sample unwrapped, then wrapped at 80, 100,
// 120 and 140 columns in each way consoles wrap (PowerShell's word wrap, indentation
// lost, a console cutting anywhere, indentation added), and expects the same values.
func TestWrappedListViews(t *testing.T) {
	p := New()
	for name, lines := range realLists(t) {
		recs := p.ParseList(lines).Records
		want := plain(recs)
		flat := p.ParseList(p.Lines(FormatList(recs, 0, WordWrap, 0))).Records
		assertSame(t, name+" unwrapped", want, plain(flat))
		for _, w := range []int{80, 100, 120, 140} {
			for _, wrap := range []Wrap{WordWrap, LostIndent, ConsoleCut} {
				for _, indent := range []int{0, 4} {
					if wrap == LostIndent && indent > 0 {
						continue
					}
					text := FormatList(flat, w, wrap, indent)
					got := plain(p.ParseList(p.Lines(text)).Records)
					assertSame(t, name+" "+wrapName(wrap)+" at "+strconv.Itoa(w)+" indent "+strconv.Itoa(indent), want, got)
				}
			}
		}
	}
}

func assertSame(t *testing.T, what string, want, got any) {
	t.Helper()
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if !bytes.Equal(a, b) {
		t.Errorf("%s: values differ\nwant %s\ngot  %s", what, a, b)
	}
}

func assertSameJSON(t *testing.T, what, want string, got any) {
	t.Helper()
	b, _ := json.Marshal(got)
	if string(b) != want {
		t.Errorf("%s: got %s, want %s", what, b, want)
	}
}

func wrapName(w Wrap) string {
	return [...]string{"word-wrap", "lost-indent", "console-cut"}[w]
}
